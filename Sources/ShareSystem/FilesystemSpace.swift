#if canImport(Glibc)
    import Glibc
#endif

/// How large a filesystem is and how much of it an unprivileged program may still fill (statvfs(2)).
package struct FilesystemSpace: Sendable, Equatable {
    /// The bytes an unprivileged program may still write (`f_bavail` blocks).
    package let availableBytes: UInt64
    /// The filesystem's size in bytes (`f_blocks`).
    package let totalBytes: UInt64

    /// The filesystem that holds `path`.
    /// - Throws: ``SystemError`` naming the path.
    package init(holding path: String) throws(SystemError) {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { throw SystemError("examine the filesystem of", path) }
        availableBytes = UInt64(info.f_bavail) * UInt64(info.f_frsize)
        totalBytes = UInt64(info.f_blocks) * UInt64(info.f_frsize)
    }
}
