// libarchive, read and written only through ShareArchive (`internal import`). The file-type
// constants are macros with casts, which Swift does not import; each gets a `static inline` shim.
#ifndef CSHARE_ARCHIVE_H
#define CSHARE_ARCHIVE_H

#include <archive.h>
#include <archive_entry.h>

/// AE_IFMT: the mask of the file-type bits of archive_entry_filetype().
static inline unsigned int CShareArchive_IFMT(void) { return (unsigned int)AE_IFMT; }
/// AE_IFREG: a regular file.
static inline unsigned int CShareArchive_IFREG(void) { return (unsigned int)AE_IFREG; }
/// AE_IFDIR: a directory.
static inline unsigned int CShareArchive_IFDIR(void) { return (unsigned int)AE_IFDIR; }
/// AE_IFLNK: a symbolic link.
static inline unsigned int CShareArchive_IFLNK(void) { return (unsigned int)AE_IFLNK; }

#endif
