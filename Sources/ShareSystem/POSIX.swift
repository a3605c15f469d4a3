#if canImport(Glibc)
    package import Glibc
#endif

/// Small helpers over POSIX calls, retrying on EINTR.
package enum POSIX {
    /// The current errno's text.
    package static func errorText(_ code: Int32 = errno) -> String { Errno(code).description }

    /// Writes all of `buffer` to `fd`.
    package static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Int32? {
        var offset = 0
        while offset < buffer.count {
            let written = retryingOnInterrupt { write(fd, buffer.baseAddress!.advanced(by: offset), buffer.count - offset) }
            if written < 0 { return errno }
            offset += written
        }
        return nil
    }

    /// Reads up to `buffer.count` bytes, retrying on EINTR; returns the count or -errno.
    package static func readSome(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = retryingOnInterrupt { read(fd, buffer.baseAddress, buffer.count) }
        return count < 0 ? -Int(errno) : count
    }

    /// The whole of the regular file at `path` (a symbolic link is followed only if
    /// `followingLinks`), or `nil` when it cannot be opened or read, is not a regular file or holds
    /// more than `limit` bytes. Without Foundation, whose readers build an error for a missing file.
    package static func readFile(_ path: String, limit: Int, followingLinks: Bool = false) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | (followingLinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size <= limit else { return nil }
        let size = Int(info.st_size)
        var complete = true
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            while count < size {
                let read = readSome(fd, UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[count...])))
                if read <= 0 { break }
                count += read
            }
            complete = count == size
        }
        return complete ? bytes : nil
    }

    /// The names in the directory open at `fd` (without `.` and `..`), sorted by bytes. Takes
    /// ownership of `fd`.
    package static func directoryNames(consuming fd: Int32) -> [String]? {
        guard let dir = fdopendir(fd) else {
            close(fd)
            return nil
        }
        defer { closedir(dir) }
        // A duplicated descriptor shares its position with the original: read from the start
        // even when the folder was listed through it before.
        rewinddir(dir)
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name == "." || name == ".." { continue }
            names.append(name)
        }
        return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Removes `name` (a file, link or whole folder) under the directory `parent`, never following
    /// links. Folders whose permissions forbid it are opened up first.
    package static func removeTree(parent: Int32, name: String) {
        var info = stat()
        guard fstatat(parent, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return }
        if (info.st_mode & S_IFMT) != S_IFDIR {
            _ = unlinkat(parent, name, 0)
            return
        }
        var fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if fd < 0 && errno == EACCES {
            _ = fchmodat(parent, name, 0o700, 0)
            fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        }
        if fd >= 0 {
            let names = directoryNames(consuming: dup(fd)) ?? []
            if !names.isEmpty && (info.st_mode & 0o300) != 0o300 { _ = fchmod(fd, 0o700) }
            for child in names { removeTree(parent: fd, name: child) }
            close(fd)
        }
        _ = unlinkat(parent, name, AT_REMOVEDIR)
    }

    /// `timespec` pair for futimens/utimensat: access time now, modification time as given.
    package static func times(seconds: Int64, nanoseconds: UInt32) -> [timespec] {
        [timespec(tv_sec: 0, tv_nsec: (1 << 30) - 1 /* UTIME_NOW */), timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds))]
    }
}
