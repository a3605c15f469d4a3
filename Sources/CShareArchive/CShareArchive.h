// libarchive, read and written only through ShareArchive (`internal import`), which opens it on first
// use (CShareLibrary.h). The file-type
// constants are macros with casts, which Swift does not import; each gets a `static inline` shim.
#ifndef CSHARE_ARCHIVE_H
#define CSHARE_ARCHIVE_H

#include <archive.h>
#include <archive_entry.h>
#include "../CShareLibrary/include/CShareLibrary.h"

/// Every libarchive function ShareArchive calls.
#define CSHARE_ARCHIVE_FUNCTIONS(F) \
    F(archive_entry_filetype) \
    F(archive_entry_free) \
    F(archive_entry_hardlink) \
    F(archive_entry_is_data_encrypted) \
    F(archive_entry_mtime) \
    F(archive_entry_new) \
    F(archive_entry_pathname_utf8) \
    F(archive_entry_perm) \
    F(archive_entry_set_filetype) \
    F(archive_entry_set_hardlink_utf8) \
    F(archive_entry_set_mtime) \
    F(archive_entry_set_pathname_utf8) \
    F(archive_entry_set_perm) \
    F(archive_entry_set_size) \
    F(archive_entry_set_symlink_utf8) \
    F(archive_entry_size) \
    F(archive_entry_size_is_set) \
    F(archive_entry_symlink_utf8) \
    F(archive_error_string) \
    F(archive_read_add_passphrase) \
    F(archive_read_data) \
    F(archive_read_free) \
    F(archive_read_has_encrypted_entries) \
    F(archive_read_new) \
    F(archive_read_next_header) \
    F(archive_read_open_filename) \
    F(archive_read_support_filter_gzip) \
    F(archive_read_support_format_tar) \
    F(archive_read_support_format_zip) \
    F(archive_write_add_filter_gzip) \
    F(archive_write_close) \
    F(archive_write_data) \
    F(archive_write_free) \
    F(archive_write_header) \
    F(archive_write_new) \
    F(archive_write_open_filename) \
    F(archive_write_set_format_pax_restricted) \
    F(archive_write_set_format_zip) \
    F(archive_write_set_options) \
    F(archive_write_set_passphrase)

/// `CShareArchive_Functions` and `CShareArchive_open()`: libarchive 3 is `libarchive.so.13`.
CSHARE_LIBRARY(CShareArchive, CSHARE_ARCHIVE_FUNCTIONS, "libarchive.so.13", "libarchive13")

/// AE_IFMT: the mask of the file-type bits of archive_entry_filetype().
static inline unsigned int CShareArchive_IFMT(void) { return (unsigned int)AE_IFMT; }
/// AE_IFREG: a regular file.
static inline unsigned int CShareArchive_IFREG(void) { return (unsigned int)AE_IFREG; }
/// AE_IFDIR: a directory.
static inline unsigned int CShareArchive_IFDIR(void) { return (unsigned int)AE_IFDIR; }
/// AE_IFLNK: a symbolic link.
static inline unsigned int CShareArchive_IFLNK(void) { return (unsigned int)AE_IFLNK; }

#endif
