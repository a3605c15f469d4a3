import Foundation

import ShareSystem

#if canImport(Glibc)
import Glibc
#endif

/// Standard input saved to a private temporary file, so it can be sent as one file (`share send -
/// --name NAME`): the offer needs the size and the SHA-256 before the first byte goes out.
///
/// The file is `NAME` in a folder of its own (mode 0700) under `$TMPDIR` (else `/tmp`), with the
/// mode a new file gets (0666 less the umask). Spooling stops with an error rather than fill the
/// disk: it keeps ``freeSpaceMargin`` free. ``remove()`` (or releasing the spool) deletes both.
public final class InputSpool: Sendable {
    /// The free space spooling never eats into.
    public static let freeSpaceMargin: UInt64 = 64 << 20

    /// The private folder.
    public let folder: String
    /// The spooled file, named as asked.
    public let path: String
    /// Bytes spooled.
    public let size: UInt64

    /// Reads `fd` to its end into `name` in a new private folder under `temporaryDirectory`.
    /// - Throws: ``SendError/cannotRead(path:reason:)`` naming standard input: when it cannot be
    ///   read, the file cannot be written, or the disk would fill.
    /// - Parameter created: called with the private folder as soon as it exists (a caller that is
    ///   interrupted can delete it with ``removeFolder(_:)``).
    public init(
        reading fd: Int32 = 0, name: String, temporaryDirectory: String, created: (String) -> Void = { _ in }
    ) throws(SendError) {
        var template = Array((temporaryDirectory + "/share-stdin-XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw .cannotRead(
                path: "-", reason: "cannot make a temporary folder in \(temporaryDirectory): \(POSIX.errorText())")
        }
        let folder = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        created(folder)
        let path = folder + "/" + name
        let mask = umask(0)
        umask(mask)
        let out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard out >= 0 else {
            let reason = POSIX.errorText()
            rmdir(folder)
            throw .cannotRead(path: "-", reason: "cannot write a temporary file in \(folder): \(reason)")
        }
        var total: UInt64 = 0
        var sinceCheck: UInt64 = .max
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var problem: String?
        while problem == nil {
            let count = buffer.withUnsafeMutableBytes { POSIX.readSome(fd, $0) }
            if count == 0 { break }
            if count < 0 {
                problem = "cannot read standard input: \(POSIX.errorText(Int32(-count)))"
                break
            }
            // The free space is checked every 16 MiB, and before the first write.
            if sinceCheck >= 16 << 20 {
                sinceCheck = 0
                var info = statvfs()
                if fstatvfs(out, &info) == 0 {
                    let free = UInt64(info.f_bavail) * UInt64(info.f_frsize)
                    if free < Self.freeSpaceMargin + (16 << 20) {
                        problem =
                            "standard input is larger than the free space in \(temporaryDirectory) allows "
                            + "(\(ByteCount.format(total)) read, \(ByteCount.format(free)) left); set TMPDIR to a larger disk"
                        break
                    }
                }
            }
            if let error = buffer.withUnsafeBytes({
                POSIX.writeAll(out, UnsafeRawBufferPointer(rebasing: $0[0..<count]))
            }) {
                problem = "cannot write \(path): \(POSIX.errorText(error))"
            }
            total += UInt64(count)
            sinceCheck += UInt64(count)
        }
        _ = fchmod(out, 0o666 & ~mask)
        close(out)
        if let problem {
            unlink(path)
            rmdir(folder)
            throw .cannotRead(path: "-", reason: problem)
        }
        self.folder = folder
        self.path = path
        self.size = total
    }

    deinit { remove() }

    /// Deletes the file and its folder.
    public func remove() {
        Self.removeFolder(folder)
    }

    /// Deletes a spool folder and what it holds (one file); safe from a signal handler's thread.
    public static func removeFolder(_ folder: String) {
        if let names = try? FileManager.default.contentsOfDirectory(atPath: folder) {
            for name in names { unlink(folder + "/" + name) }
        }
        rmdir(folder)
    }
}
