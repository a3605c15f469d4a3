// Linux system calls that glibc 2.36 does not wrap (openat2) or that Swift's Glibc module does not
// show (renameat2, syncfs, sync_file_range). Swift cannot call the variadic `syscall()`, so each gets
// a small `static inline` shim; CShareLandlock.h has Landlock and the confined spawn of importers.
// Only `ShareKit` and `ShareArchive` import this module, with `internal import`.
#ifndef CSHARE_LINUX_H
#define CSHARE_LINUX_H

// No _GNU_SOURCE here: system structs (fd_set, ...) must be declared exactly as Swift's Glibc
// module and the other C modules declare them, or Clang refuses to merge the modules.
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

/// openat2(2): open `path` relative to `dirfd`, refusing to resolve outside it.
/// Returns a file descriptor, or -1 with errno set (EXDEV: escapes `dirfd`; ELOOP: a symbolic link).
static inline int CShareLinux_openat_beneath(int dirfd, const char *path, int flags, unsigned int mode) {
    struct open_how how = {0};
    how.flags = (uint64_t)flags;
    how.mode = (uint64_t)((flags & O_CREAT) ? mode : 0);
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV;
    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

/// renameat2(2) with RENAME_NOREPLACE: fails with EEXIST instead of replacing `newpath`.
static inline int CShareLinux_rename_noreplace(int olddirfd, const char *oldpath, int newdirfd, const char *newpath) {
    return (int)syscall(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, 1 /* RENAME_NOREPLACE */);
}

/// syncfs(2): commit the whole filesystem that holds `fd`.
static inline int CShareLinux_syncfs(int fd) {
    return (int)syscall(SYS_syncfs, fd);
}

/// sync_file_range(2) with SYNC_FILE_RANGE_WRITE: start writeback of a range without waiting.
static inline int CShareLinux_start_writeback(int fd, int64_t offset, int64_t length) {
    return (int)syscall(SYS_sync_file_range, fd, offset, length, 2 /* SYNC_FILE_RANGE_WRITE */);
}

/// pipe2(2) with O_CLOEXEC: both ends close on exec, with no window for another thread's spawn.
static inline int CShareLinux_pipe_cloexec(int fds[2]) {
    return (int)syscall(SYS_pipe2, fds, O_CLOEXEC);
}

/// Raises the soft limit on open descriptors (RLIMIT_NOFILE) to the hard one, but to at most
/// `ceiling`. Returns the soft limit before, or 0 when it was not raised (already as high, or the
/// call failed).
static inline uint64_t CShareLinux_raise_descriptor_limit(uint64_t ceiling) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
    rlim_t target = limit.rlim_max < (rlim_t)ceiling ? limit.rlim_max : (rlim_t)ceiling;
    if (target <= limit.rlim_cur) return 0;
    uint64_t before = (uint64_t)limit.rlim_cur;
    limit.rlim_cur = target;
    if (setrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
    return before;
}

#endif
