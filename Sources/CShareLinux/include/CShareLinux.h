// Linux system calls that glibc 2.36 does not wrap (openat2, Landlock) or that Swift's Glibc module
// does not show (renameat2, syncfs, sync_file_range, mallopt), and a fork/exec that confines the
// child before it runs a program. Swift cannot call the variadic `syscall()`, so each gets a shim.
//
// Only ShareSystem imports this module. This header declares prototypes with `<stdint.h>` and
// `<stddef.h>` types only; shims.c includes the system headers. A libc header here would give this
// module its own copy of `struct stat`, `timespec`, `rlimit`..., and Swift could then attribute
// those types to this module instead of Glibc (docs/ARCHITECTURE.md, "C shims").
#ifndef CSHARE_LINUX_H
#define CSHARE_LINUX_H

#include <stddef.h>
#include <stdint.h>

// MARK: Files

/// openat2(2): open `path` relative to `dirfd`, refusing to resolve outside it, through a symbolic
/// link, a magic link or another mount. Returns a file descriptor, or -1 with errno set (EXDEV:
/// escapes `dirfd`; ELOOP: a symbolic link).
int CShareLinux_openat_beneath(int dirfd, const char *_Nonnull path, int flags, unsigned int mode);

/// renameat2(2) with RENAME_NOREPLACE: fails with EEXIST instead of replacing `newpath`.
int CShareLinux_rename_noreplace(int olddirfd, const char *_Nonnull oldpath, int newdirfd, const char *_Nonnull newpath);

/// syncfs(2): commit the whole filesystem that holds `fd`.
int CShareLinux_syncfs(int fd);

/// sync_file_range(2) with SYNC_FILE_RANGE_WRITE: start writeback of a range without waiting.
int CShareLinux_start_writeback(int fd, int64_t offset, int64_t length);

/// fcntl(2) F_SETFL: turns O_DIRECT on (`on` 1) or off for the open file `fd`, so its writes go
/// straight to the device instead of through the page cache. Returns 0, or -1 with errno set
/// (EINVAL: the filesystem cannot do it).
int CShareLinux_set_direct_io(int fd, int on);

/// The name the kernel shows for the calling thread (/proc/self/task/TID/comm; at most 15 bytes
/// are kept). Returns 0, or an error number.
int CShareLinux_name_thread(const char *_Nonnull name);

/// pipe2(2) with O_CLOEXEC: both ends close on exec, with no window for another thread's spawn.
int CShareLinux_pipe_cloexec(int fds[_Nonnull 2]);

/// open(2) with O_PATH and O_CLOEXEC: a descriptor that names a file or folder (for
/// landlock_add_rule) without opening it for reading. `follow` 0 opens a symbolic link itself.
/// Returns the descriptor, or -1 with errno set.
int CShareLinux_open_path(const char *_Nonnull path, int follow);

// MARK: Limits and the allocator

/// Raises the soft limit on open descriptors (RLIMIT_NOFILE) to the hard one, but to at most
/// `ceiling`. Returns the soft limit before, or 0 when it was not raised (already as high, or the
/// call failed).
uint64_t CShareLinux_raise_descriptor_limit(uint64_t ceiling);

/// Lets glibc's malloc use at most `count` arenas (mallopt M_ARENA_MAX); returns 1 when it took it.
int CShareLinux_malloc_limit_arenas(int count);

/// Serves every allocation of at least `bytes` with its own mmap, unmapped when it is freed
/// (mallopt M_MMAP_THRESHOLD, which also stops glibc from raising the threshold by itself); returns
/// 1 when it took it.
int CShareLinux_malloc_set_mmap_threshold(int bytes);

// MARK: Landlock (https://docs.kernel.org/userspace-api/landlock.html)

// The rights share hands out, with the values of the kernel's include/uapi/linux/landlock.h (shims.c
// checks them against Debian's header where it has them: Debian 12 describes ABI 2, Linux 6.1).
#define CSHARE_LANDLOCK_ACCESS_FS_EXECUTE (1ULL << 0)
#define CSHARE_LANDLOCK_ACCESS_FS_WRITE_FILE (1ULL << 1)
#define CSHARE_LANDLOCK_ACCESS_FS_READ_FILE (1ULL << 2)
#define CSHARE_LANDLOCK_ACCESS_FS_READ_DIR (1ULL << 3)
#define CSHARE_LANDLOCK_ACCESS_FS_REMOVE_DIR (1ULL << 4)
#define CSHARE_LANDLOCK_ACCESS_FS_REMOVE_FILE (1ULL << 5)
#define CSHARE_LANDLOCK_ACCESS_FS_MAKE_CHAR (1ULL << 6)
#define CSHARE_LANDLOCK_ACCESS_FS_MAKE_DIR (1ULL << 7)
#define CSHARE_LANDLOCK_ACCESS_FS_MAKE_REG (1ULL << 8)
#define CSHARE_LANDLOCK_ACCESS_FS_MAKE_SOCK (1ULL << 9)
#define CSHARE_LANDLOCK_ACCESS_FS_MAKE_FIFO (1ULL << 10)
#define CSHARE_LANDLOCK_ACCESS_FS_MAKE_BLOCK (1ULL << 11)
#define CSHARE_LANDLOCK_ACCESS_FS_MAKE_SYM (1ULL << 12)
/// ABI 2 (Linux 5.19): linking or renaming a file into another folder.
#define CSHARE_LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
/// ABI 3 (Linux 6.2): truncating a file.
#define CSHARE_LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
/// ABI 5 (Linux 6.10): ioctl on a device file.
#define CSHARE_LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
/// ABI 4 (Linux 6.7): binding and connecting TCP sockets.
#define CSHARE_LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#define CSHARE_LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
/// ABI 6 (Linux 6.12): no abstract Unix socket or signal reaches outside the domain.
#define CSHARE_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define CSHARE_LANDLOCK_SCOPE_SIGNAL (1ULL << 1)

/// The Landlock ABI version the kernel offers (1 or more), or `-errno`: `-ENOSYS` when the kernel
/// was built without Landlock, `-EOPNOTSUPP` when it was disabled at boot.
int CShareLinux_landlock_abi(void);

/// landlock_create_ruleset(2): a ruleset that handles these rights (zero for what the ABI lacks).
/// Returns its descriptor (close-on-exec), or -1 with errno set.
int CShareLinux_landlock_create_ruleset(uint64_t fs, uint64_t net, uint64_t scoped);

/// landlock_add_rule(2): allow `access` beneath the file or folder open at `fd` (`O_PATH`).
/// Returns 0, or -1 with errno set.
int CShareLinux_landlock_allow_beneath(int ruleset, int fd, uint64_t access);

// MARK: Starting programs

/// Where `CShareLinux_spawn` failed.
enum CShareSpawnStep {
    CShareSpawnStepPipe = 1,
    CShareSpawnStepFork,
    CShareSpawnStepDescriptors,
    CShareSpawnStepProcessGroup,
    CShareSpawnStepDirectory,
    CShareSpawnStepNoNewPrivileges,
    CShareSpawnStepRestrict,
    CShareSpawnStepExec,
};

/// Runs `program` in a child process, the way posix_spawn would, but confined first.
///
/// The child: joins a process group of its own; restores every signal's default disposition and
/// an empty signal mask; gets `in_fd`, `out_fd` and `err_fd` as its stdin, stdout and stderr and no
/// other descriptor; changes to `directory` (unless NULL); then, when `ruleset` is not -1, sets
/// `PR_SET_NO_NEW_PRIVS` and enters the Landlock ruleset (landlock_restrict_self); and executes
/// `program` with `argv` and `envp`. Between fork and exec it makes only async-signal-safe system
/// calls (the parent is multithreaded) and touches no memory the parent did not prepare.
///
/// When `descriptor_limit` is not 0, the child's soft limit on open descriptors is set back to it
/// just before the exec (the receiver raised its own; programs using `select` expect at most 1024).
///
/// Returns the child's pid once `program` is running. Returns -1 when any step failed, with the
/// step in `*failed_step` and the errno in `*failed_errno`; a child that failed has been reaped.
int32_t CShareLinux_spawn(
    const char *_Nonnull program, char *_Nullable const *_Nonnull argv, char *_Nullable const *_Nonnull envp,
    const char *_Nullable directory, int in_fd, int out_fd, int err_fd, int ruleset, uint64_t descriptor_limit,
    int *_Nonnull failed_step, int *_Nonnull failed_errno);

#endif
