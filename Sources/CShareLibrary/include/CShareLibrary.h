// Debian's shared libraries, opened the first time share needs one (docs/ARCHITECTURE.md, "C libraries").
//
// The executable does not link OpenSSL, libarchive, Avahi, D-Bus, libsystemd, ldns or ICU: the
// dynamic loader would map and relocate all of them, and their own dependencies, at every start,
// which was most of the time of a command that needs none of them (`share types resolve`). Each
// wrapper module's header instead lists the functions it calls (an X-macro), declares a table of
// pointers with each function's own type (`__typeof__`, so a signature cannot drift from the
// header's), and opens the library into that table on first use.
//
// The wrapper headers include this one as text. It declares only `<stddef.h>` types, so that no libc
// struct enters a wrapper's module through it (docs/ARCHITECTURE.md, "C shims"); the loader itself,
// with `dlopen` and its message, is library.c.
#ifndef CSHARE_LIBRARY_H
#define CSHARE_LIBRARY_H

#include <stddef.h>

/// One field of a function table: a pointer of the named function's own type.
#define CSHARE_LIBRARY_FIELD(name) __typeof__(&name) _Nonnull name;

/// One entry of a function table's names, in the order of its fields (macro-expanded first: ICU
/// renames `uspoof_open` to `uspoof_open_72`).
#define CSHARE_LIBRARY_NAME(name) CSHARE_LIBRARY_STRING(name),

/// `text` as a string literal, after macro expansion (`CSHARE_LIBRARY_STRING(OPENSSL_SHLIB_VERSION)` is "3").
#define CSHARE_LIBRARY_STRING(text) CSHARE_LIBRARY_QUOTE(text)
#define CSHARE_LIBRARY_QUOTE(text) #text

/// Opens `soname` and stores the address of each of `count` `names` into `slots`, in order.
/// A library that cannot be opened, or lacks a function, is a broken installation, as a missing
/// library was for the dynamic loader before: the process says which package to install and exits
/// with status 1.
void CShareLibrary_open(
    const char *_Nonnull soname, const char *_Nonnull package, const char *_Nonnull const *_Nonnull names,
    size_t count, void *_Nullable *_Nonnull slots);

/// Declares `PREFIX_Functions`, a table of every function `LIST` names (an X-macro), and
/// `PREFIX_open()`, which opens `SONAME` and returns the table (exiting with a message naming
/// `PACKAGE` when it cannot).
#define CSHARE_LIBRARY(PREFIX, LIST, SONAME, PACKAGE)                                                       \
    typedef struct PREFIX##_Functions {                                                                     \
        LIST(CSHARE_LIBRARY_FIELD)                                                                          \
    } PREFIX##_Functions;                                                                                   \
    static inline PREFIX##_Functions PREFIX##_open(void) {                                                  \
        static const char *const names[] = {LIST(CSHARE_LIBRARY_NAME)};                                     \
        PREFIX##_Functions functions;                                                                       \
        CShareLibrary_open(SONAME, PACKAGE, names, sizeof names / sizeof names[0], (void **)&functions);    \
        return functions;                                                                                   \
    }

#endif
