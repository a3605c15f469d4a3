// The bodies of include/CShareLinux.h, and the only place the system headers they need are included.
// _GNU_SOURCE shows O_PATH, renameat2's flags and the like; unlike a module header, it cannot make
// any struct differ from the ones Swift's Glibc module declares.
#define _GNU_SOURCE
#include "CShareLinux.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/landlock.h>
#include <linux/openat2.h>

// The header's Landlock rights are the kernel's (Debian 12's header has those up to ABI 2).
_Static_assert(CSHARE_LANDLOCK_ACCESS_FS_EXECUTE == LANDLOCK_ACCESS_FS_EXECUTE, "Landlock right");
_Static_assert(CSHARE_LANDLOCK_ACCESS_FS_WRITE_FILE == LANDLOCK_ACCESS_FS_WRITE_FILE, "Landlock right");
_Static_assert(CSHARE_LANDLOCK_ACCESS_FS_READ_FILE == LANDLOCK_ACCESS_FS_READ_FILE, "Landlock right");
_Static_assert(CSHARE_LANDLOCK_ACCESS_FS_READ_DIR == LANDLOCK_ACCESS_FS_READ_DIR, "Landlock right");
_Static_assert(CSHARE_LANDLOCK_ACCESS_FS_REMOVE_DIR == LANDLOCK_ACCESS_FS_REMOVE_DIR, "Landlock right");
_Static_assert(CSHARE_LANDLOCK_ACCESS_FS_REMOVE_FILE == LANDLOCK_ACCESS_FS_REMOVE_FILE, "Landlock right");
_Static_assert(CSHARE_LANDLOCK_ACCESS_FS_MAKE_CHAR == LANDLOCK_ACCESS_FS_MAKE_CHAR, "Landlock right");
_Static_assert(CSHARE_LANDLOCK_ACCESS_FS_MAKE_DIR == LANDLOCK_ACCESS_FS_MAKE_DIR, "Landlock right");
_Static_assert(CSHARE_LANDLOCK_ACCESS_FS_MAKE_REG == LANDLOCK_ACCESS_FS_MAKE_REG, "Landlock right");
_Static_assert(CSHARE_LANDLOCK_ACCESS_FS_MAKE_SOCK == LANDLOCK_ACCESS_FS_MAKE_SOCK, "Landlock right");
_Static_assert(CSHARE_LANDLOCK_ACCESS_FS_MAKE_FIFO == LANDLOCK_ACCESS_FS_MAKE_FIFO, "Landlock right");
_Static_assert(CSHARE_LANDLOCK_ACCESS_FS_MAKE_BLOCK == LANDLOCK_ACCESS_FS_MAKE_BLOCK, "Landlock right");
_Static_assert(CSHARE_LANDLOCK_ACCESS_FS_MAKE_SYM == LANDLOCK_ACCESS_FS_MAKE_SYM, "Landlock right");
#ifdef LANDLOCK_ACCESS_FS_REFER
_Static_assert(CSHARE_LANDLOCK_ACCESS_FS_REFER == LANDLOCK_ACCESS_FS_REFER, "Landlock right");
#endif
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
_Static_assert(CSHARE_LANDLOCK_ACCESS_FS_TRUNCATE == LANDLOCK_ACCESS_FS_TRUNCATE, "Landlock right");
#endif

/// `struct landlock_ruleset_attr` as of ABI 6. The kernel reads the fields it knows and requires
/// the others to be zero, so this one layout serves every ABI.
struct CShareLandlockRulesetAttr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

int CShareLinux_openat_beneath(int dirfd, const char *path, int flags, unsigned int mode) {
    struct open_how how = {0};
    how.flags = (uint64_t)flags;
    how.mode = (uint64_t)((flags & O_CREAT) ? mode : 0);
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV;
    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

int CShareLinux_rename_noreplace(int olddirfd, const char *oldpath, int newdirfd, const char *newpath) {
    return (int)syscall(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, 1 /* RENAME_NOREPLACE */);
}

int CShareLinux_syncfs(int fd) {
    return (int)syscall(SYS_syncfs, fd);
}

int CShareLinux_start_writeback(int fd, int64_t offset, int64_t length) {
    return (int)syscall(SYS_sync_file_range, fd, offset, length, 2 /* SYNC_FILE_RANGE_WRITE */);
}

int CShareLinux_set_direct_io(int fd, int on) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0) return -1;
    int wanted = on ? (flags | O_DIRECT) : (flags & ~O_DIRECT);
    if (wanted == flags) return 0;
    return fcntl(fd, F_SETFL, wanted);
}

int CShareLinux_name_thread(const char *name) {
    char short_name[16];
    size_t length = 0;
    while (length < sizeof short_name - 1 && name[length] != '\0') {
        short_name[length] = name[length];
        length += 1;
    }
    short_name[length] = '\0';
    return pthread_setname_np(pthread_self(), short_name);
}

int CShareLinux_pipe_cloexec(int fds[2]) {
    return (int)syscall(SYS_pipe2, fds, O_CLOEXEC);
}

uint64_t CShareLinux_raise_descriptor_limit(uint64_t ceiling) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
    rlim_t target = limit.rlim_max < (rlim_t)ceiling ? limit.rlim_max : (rlim_t)ceiling;
    if (target <= limit.rlim_cur) return 0;
    uint64_t before = (uint64_t)limit.rlim_cur;
    limit.rlim_cur = target;
    if (setrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
    return before;
}

int CShareLinux_landlock_abi(void) {
    long version = syscall(SYS_landlock_create_ruleset, (void *)0, (size_t)0, LANDLOCK_CREATE_RULESET_VERSION);
    return version < 0 ? -errno : (int)version;
}

int CShareLinux_landlock_create_ruleset(uint64_t fs, uint64_t net, uint64_t scoped) {
    struct CShareLandlockRulesetAttr attr = {fs, net, scoped};
    return (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0U);
}

int CShareLinux_open_path(const char *path, int follow) {
    return open(path, O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
}

int CShareLinux_landlock_allow_beneath(int ruleset, int fd, uint64_t access) {
    struct landlock_path_beneath_attr attr = {0};
    attr.allowed_access = access;
    attr.parent_fd = fd;
    return (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &attr, 0U);
}

/// Writes the failed step and errno to the parent and ends the child (async-signal-safe).
static void CShareLinux_spawn_fail(int report, int step) {
    int message[2] = {step, errno};
    ssize_t written;
    do {
        written = write(report, message, sizeof(message));
    } while (written < 0 && errno == EINTR);
    _exit(127);
}

int32_t CShareLinux_spawn(
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

int CShareLinux_malloc_limit_arenas(int count) {
    return mallopt(M_ARENA_MAX, count);
}

int CShareLinux_malloc_set_mmap_threshold(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}
