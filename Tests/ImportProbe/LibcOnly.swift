// Compile-only: this file imports Glibc and nothing else, and touches the libc structs share's Swift
// code uses. With MemberImportVisibility, a C module of share that declares one of them itself (a libc
// header in its module header) can become its "defining module" (AllWrappers.swift), and then this
// file fails to build: "initializer 'init()' is not available due to missing import of defining
// module ...". `make test` builds this target in release from an empty folder, as users build share
// (docs/ARCHITECTURE.md, "C shims").
import Glibc

/// libc's structs, through Glibc alone.
func libcStructsThroughGlibcAlone() -> [Any] {
    [
        stat().st_mode, stat().st_nlink, statvfs().f_bavail, rlimit().rlim_cur, timespec().tv_sec, flock().l_type,
        in_addr().s_addr, sockaddr_in().sin_addr, in6_addr(), sockaddr_in6().sin6_addr, sockaddr_storage().ss_family,
        sigset_t(), tm().tm_year, sockaddr_un().sun_family, timeval().tv_usec, pollfd().fd,
    ]
}
