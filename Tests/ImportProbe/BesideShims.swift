// Touches libc's structs where share's own C shims are visible, as share's files do (StagingArea uses
// `stat` beside CShareLinux). When a shim module declares one of those structs itself (a libc header
// in its include/ header), Clang may take that module's copy as the definition here, and
// LibcOnly.swift, which imports only Glibc, then fails to build.
internal import CShareLibrary
internal import CShareLinux
internal import CShareResolv
import Glibc

/// One symbol of each shim module.
func everyShim() -> [Any] { [CShareLibrary_open, CShareLinux_landlock_abi, CShareResolv_new] }

/// libc's structs, with every shim module in sight.
func libcStructsBesideTheShims() -> [Any] {
    [
        stat().st_mode, stat().st_nlink, statvfs().f_bavail, rlimit().rlim_cur, timespec().tv_sec, flock().l_type,
        in_addr().s_addr, sockaddr_in().sin_addr, in6_addr(), sockaddr_in6().sin6_addr, sockaddr_storage().ss_family,
        sigset_t(), tm().tm_year, sockaddr_un().sun_family, timeval().tv_usec, pollfd().fd,
    ]
}
