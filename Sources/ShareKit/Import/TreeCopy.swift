import Foundation
import ShareSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Copies a file or a folder tree between two directory descriptors, never following a link:
/// regular files (content, permission bits, modification time), folders (permission bits and
/// times applied after their contents) and symbolic links (as links). Anything else is refused.
enum TreeCopy {
    /// Copies `name` in `sourceFD` to `target` in `destinationFD` (which must not exist).
    ///
    /// Nested folders get their exact permission bits; the top folder stays writable by its owner
    /// (it is renamed into place afterwards, which needs that; the caller applies its mode then).
    /// - Throws: ``ImportFailure`` naming the path that failed.
    static func copy(_ name: String, from sourceFD: Int32, to target: String, in destinationFD: Int32, isTop: Bool = true)
        throws(ImportFailure)
    {
        var info = stat()
        guard fstatat(sourceFD, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
            throw ImportFailure("cannot read '\(name)': \(POSIX.errorText())")
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            try copyFile(name, from: sourceFD, to: target, in: destinationFD, info: info)
        case S_IFDIR:
            guard mkdirat(destinationFD, target, 0o700) == 0 else {
                throw ImportFailure("cannot create the folder '\(target)': \(POSIX.errorText())")
            }
            let from = openat(sourceFD, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard from >= 0 else { throw ImportFailure("cannot open the folder '\(name)': \(POSIX.errorText())") }
            defer { close(from) }
            let to = openat(destinationFD, target, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard to >= 0 else { throw ImportFailure("cannot open the folder '\(target)': \(POSIX.errorText())") }
            defer { close(to) }
            for child in POSIX.directoryNames(consuming: dup(from)) ?? [] {
                try copy(child, from: from, to: child, in: to, isTop: false)
            }
            var times = [info.st_atim, info.st_mtim]
            _ = fchmod(to, mode_t(info.st_mode & 0o777) | (isTop ? 0o700 : 0))
            _ = futimens(to, &times)
        case S_IFLNK:
            var buffer = [CChar](repeating: 0, count: 4097)
            let count = readlinkat(sourceFD, name, &buffer, 4096)
            guard count >= 0 else { throw ImportFailure("cannot read the link '\(name)': \(POSIX.errorText())") }
            let linkTarget = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard symlinkat(linkTarget, destinationFD, target) == 0 else {
                throw ImportFailure("cannot create the link '\(target)': \(POSIX.errorText())")
            }
        default:
            throw ImportFailure("'\(name)' is not a file, folder or link")
        }
    }

    private static func copyFile(
        _ name: String, from sourceFD: Int32, to target: String, in destinationFD: Int32, info: stat
    )
        throws(ImportFailure)
    {
        let input = openat(sourceFD, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard input >= 0 else { throw ImportFailure("cannot read '\(name)': \(POSIX.errorText())") }
        defer { close(input) }
        let output = openat(destinationFD, target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw ImportFailure("cannot create '\(target)': \(POSIX.errorText())") }
        defer { close(output) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = POSIX.readSome(input, buffer)
            if count < 0 { throw ImportFailure("cannot read '\(name)': \(POSIX.errorText(Int32(-count)))") }
            if count == 0 { break }
            if let problem = POSIX.writeAll(output, UnsafeRawBufferPointer(rebasing: buffer[0..<count])) {
                throw ImportFailure("cannot write '\(target)': \(POSIX.errorText(problem))")
            }
        }
        var times = [info.st_atim, info.st_mtim]
        if fchmod(output, mode_t(info.st_mode & 0o777)) != 0 || futimens(output, &times) != 0 {
            throw ImportFailure("cannot set the mode and time of '\(target)': \(POSIX.errorText())")
        }
    }
}
