#if canImport(Glibc)
    import Glibc
#endif

/// What stat(2) says of a file or folder, in Swift's own types, so that callers need no libc struct.
package struct FileStatus: Sendable, Equatable {
    /// The device of the filesystem that holds it (`st_dev`).
    package let device: UInt64
    /// Its inode number on that device (`st_ino`).
    package let inode: UInt64
    /// Its type and permission bits (`st_mode`).
    package let mode: UInt32
    /// How many names it has (`st_nlink`): 0 once the last one was removed while it was open.
    package let linkCount: UInt64
    /// Its size in bytes (`st_size`).
    package let size: Int64

    /// Whether it is a folder.
    package var isFolder: Bool { mode & UInt32(S_IFMT) == UInt32(S_IFDIR) }
    /// Whether it is a regular file.
    package var isRegularFile: Bool { mode & UInt32(S_IFMT) == UInt32(S_IFREG) }
    /// Whether it is a symbolic link (only ever, when examined without following links).
    package var isSymbolicLink: Bool { mode & UInt32(S_IFMT) == UInt32(S_IFLNK) }

    private init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        mode = UInt32(info.st_mode)
        linkCount = UInt64(info.st_nlink)
        size = Int64(info.st_size)
    }

    /// The file or folder at `path` (`stat`, or `lstat` when not `followingLinks`).
    /// - Throws: ``SystemError`` naming the path.
    package init(path: String, followingLinks: Bool = true) throws(SystemError) {
        var info = stat()
        let result = followingLinks ? stat(path, &info) : lstat(path, &info)
        guard result == 0 else { throw SystemError("examine", path) }
        self.init(info)
    }

    /// The file or folder open at `descriptor` (`fstat`); `path` only names it in an error.
    /// - Throws: ``SystemError`` naming `path`.
    package init(descriptor: Int32, path: String) throws(SystemError) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw SystemError("examine", path) }
        self.init(info)
    }
}
