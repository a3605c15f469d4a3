// Landlock (https://docs.kernel.org/userspace-api/landlock.html) and a fork/exec that confines the
// child before it runs a program. glibc 2.36 wraps none of the Landlock calls and Swift cannot call
// the variadic `syscall()`, so each gets a `static inline` shim. `LandlockRuleset` and
// `ImporterProcess` (ShareKit, `internal import`) are its only users.
#ifndef CSHARE_LANDLOCK_H
#define CSHARE_LANDLOCK_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/landlock.h>

// Debian 12's headers describe Landlock ABI 2 (Linux 6.1). The fields and rights of later ABIs,
// with the values of the kernel's include/uapi/linux/landlock.h:
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

/// `struct landlock_ruleset_attr` as of ABI 6. The kernel reads the fields it knows and requires
/// the others to be zero, so this one layout serves every ABI.
struct CShareLandlockRulesetAttr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

/// The Landlock ABI version the kernel offers (1 or more), or `-errno`: `-ENOSYS` when the kernel
/// was built without Landlock, `-EOPNOTSUPP` when it was disabled at boot.
static inline int CShareLinux_landlock_abi(void) {
    long version = syscall(SYS_landlock_create_ruleset, (void *)0, (size_t)0, LANDLOCK_CREATE_RULESET_VERSION);
    return version < 0 ? -errno : (int)version;
}

/// landlock_create_ruleset(2): a ruleset that handles these rights (zero for what the ABI lacks).
/// Returns its descriptor (close-on-exec), or -1 with errno set.
static inline int CShareLinux_landlock_create_ruleset(uint64_t fs, uint64_t net, uint64_t scoped) {
    struct CShareLandlockRulesetAttr attr = {fs, net, scoped};
    return (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0U);
}

/// open(2) with O_PATH (which glibc shows only under _GNU_SOURCE) and O_CLOEXEC: a descriptor that
/// names a file or folder for landlock_add_rule without opening it for reading. `follow` 0 opens a
/// symbolic link itself. Returns the descriptor, or -1 with errno set.
static inline int CShareLinux_open_path(const char *path, int follow) {
    return open(path, __O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
}

/// landlock_add_rule(2): allow `access` beneath the file or folder open at `fd` (`O_PATH`).
/// Returns 0, or -1 with errno set.
static inline int CShareLinux_landlock_allow_beneath(int ruleset, int fd, uint64_t access) {
    struct landlock_path_beneath_attr attr = {0};
    attr.allowed_access = access;
    attr.parent_fd = fd;
    return (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &attr, 0U);
}

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

/// Writes the failed step and errno to the parent and ends the child (async-signal-safe).
static inline void CShareLinux_spawn_fail(int report, int step) {
    int message[2] = {step, errno};
    ssize_t written;
    do {
        written = write(report, message, sizeof(message));
    } while (written < 0 && errno == EINTR);
    _exit(127);
}

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
static inline pid_t CShareLinux_spawn(
    const char *program, char *const argv[], char *const envp[], const char *directory, int in_fd, int out_fd,
    int err_fd, int ruleset, uint64_t descriptor_limit, int *failed_step, int *failed_errno) {
    int report[2];
    if (syscall(SYS_pipe2, report, O_CLOEXEC) != 0) {
        *failed_step = CShareSpawnStepPipe;
        *failed_errno = errno;
        return -1;
    }
    // No signal handler of the parent may run in the child before the dispositions are reset.
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    pid_t pid = fork();
    if (pid == 0) {
        struct sigaction standard;
        standard.sa_handler = SIG_DFL;
        standard.sa_flags = 0;
        sigemptyset(&standard.sa_mask);
        // glibc refuses its two internal signals and the kernel SIGKILL and SIGSTOP: nothing to reset.
        for (int number = 1; number < 65; number++) (void)sigaction(number, &standard, (struct sigaction *)0);
        sigset_t none;
        sigemptyset(&none);
        // The descriptors first move above 2, so no dup2 below overwrites one still to be moved.
        int in = fcntl(in_fd, F_DUPFD_CLOEXEC, 3);
        int out = fcntl(out_fd, F_DUPFD_CLOEXEC, 3);
        int err = fcntl(err_fd, F_DUPFD_CLOEXEC, 3);
        if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) {
            CShareLinux_spawn_fail(report[1], CShareSpawnStepDescriptors);
        }
        if (setpgid(0, 0) != 0) CShareLinux_spawn_fail(report[1], CShareSpawnStepProcessGroup);
        if (directory != (const char *)0 && chdir(directory) != 0) {
            CShareLinux_spawn_fail(report[1], CShareSpawnStepDirectory);
        }
        if (ruleset >= 0) {
            if (prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) != 0) {
                CShareLinux_spawn_fail(report[1], CShareSpawnStepNoNewPrivileges);
            }
            if (syscall(SYS_landlock_restrict_self, ruleset, 0U) != 0) {
                CShareLinux_spawn_fail(report[1], CShareSpawnStepRestrict);
            }
        }
        // Every descriptor above 2 closes at exec; the report pipe stays open until then.
        if (syscall(SYS_close_range, 3U, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */) != 0) {
            struct rlimit limit;
            int highest = 65536;
            if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < 1048576) highest = (int)limit.rlim_cur;
            for (int fd = 3; fd < highest; fd++) {
                if (fd != report[1]) (void)close(fd);
            }
        }
        if (descriptor_limit != 0) {
            struct rlimit limit;
            if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && (rlim_t)descriptor_limit < limit.rlim_cur) {
                limit.rlim_cur = (rlim_t)descriptor_limit;
                (void)setrlimit(RLIMIT_NOFILE, &limit);
            }
        }
        pthread_sigmask(SIG_SETMASK, &none, (sigset_t *)0);
        execve(program, argv, envp);
        CShareLinux_spawn_fail(report[1], CShareSpawnStepExec);
    }
    int forkErrno = errno;
    pthread_sigmask(SIG_SETMASK, &previous, (sigset_t *)0);
    close(report[1]);
    if (pid < 0) {
        close(report[0]);
        *failed_step = CShareSpawnStepFork;
        *failed_errno = forkErrno;
        return -1;
    }
    int message[2] = {0, 0};
    ssize_t count;
    do {
        count = read(report[0], message, sizeof(message));
    } while (count < 0 && errno == EINTR);
    close(report[0]);
    if (count == (ssize_t)sizeof(message)) {
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        *failed_step = message[0];
        *failed_errno = message[1];
        return -1;
    }
    return pid;
}

#endif
