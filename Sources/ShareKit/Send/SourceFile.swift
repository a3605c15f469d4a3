import Foundation
import ShareDocuments
import ShareTLS

import ShareSystem

#if canImport(Glibc)
import Glibc
#endif

/// One file of a send, open for reading: checked against the offer when opened and when read to
/// its end, so a file that changed fails the send with a message that says so.
final class SourceFile {
    /// The open file, owned by this object.
    private let fd: Int32
    /// Its path, for messages.
    let path: String
    /// Its size in the offer.
    let size: UInt64

    private init(fd: Int32, path: String, size: UInt64) {
        self.fd = fd
        self.path = path
        self.size = size
    }

    deinit { close(fd) }

    /// Opens file `index` of `prepared`; the failure says why it cannot be sent. `midway`: part of
    /// the file was sent already (read by another reader), so a change is a change during the send.
    static func open(_ prepared: PreparedSend, index: Int, midway: Bool = false) -> Result<SourceFile, SourceFailure> {
        let manifest = prepared.manifest
        let entry = manifest.entries[manifest.fileEntryIndices[index]]
        let path = prepared.sources[index]
        let flags = O_RDONLY | O_CLOEXEC | (prepared.followLinks[index] ? 0 : O_NOFOLLOW)
        let fd = Glibc.open(path, flags)
        guard fd >= 0 else { return .failure(SourceFailure("cannot read '\(path)': \(POSIX.errorText())")) }
        let file = SourceFile(fd: fd, path: path, size: entry.size)
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, UInt64(info.st_size) == entry.size else {
            let when = midway ? "while being sent" : "after it was offered"
            return .failure(SourceFailure("'\(path)' changed \(when); send it again"))
        }
        if entry.size > UInt64(FileReader.chunkSize) { _ = posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL) }
        return .success(file)
    }

    /// The next `count` bytes, read straight into a new array (no zero-filling first).
    func read(_ count: Int) -> Result<[UInt8], SourceFailure> {
        var failure: Int?
        let buffer = [UInt8](unsafeUninitializedCapacity: count) { raw, initialized in
            var filled = 0
            while filled < count {
                let got = POSIX.readSome(
                    fd, UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: raw[filled...])))
                if got <= 0 {
                    failure = got
                    break
                }
                filled += got
            }
            initialized = filled
        }
        if let got = failure { return .failure(readFailure(got)) }
        return .success(buffer)
    }

    /// The SHA-256 of the first `count` bytes (read from the start, where the file is when opened).
    func hashPrefix(_ count: UInt64) -> Result<SHA256, SourceFailure> {
        var hasher = SHA256()
        var remaining = count
        var buffer = [UInt8](repeating: 0, count: FileReader.chunkSize)
        while remaining > 0 {
            let want = Int(min(remaining, UInt64(FileReader.chunkSize)))
            let got = buffer.withUnsafeMutableBytes {
                POSIX.readSome(fd, UnsafeMutableRawBufferPointer(rebasing: $0[..<want]))
            }
            if got <= 0 { return .failure(readFailure(got)) }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[..<got])) }
            remaining -= UInt64(got)
        }
        return .success(hasher)
    }

    /// Goes back to the start (the receiver's part was of another version: the file starts over).
    func rewind() -> SourceFailure? { skip(0) }

    /// Goes to `offset` from the start (to continue where another reader of the file stopped).
    func skip(_ offset: UInt64) -> SourceFailure? {
        lseek(fd, off_t(offset), SEEK_SET) == off_t(offset)
            ? nil : SourceFailure("cannot read '\(path)': \(POSIX.errorText())")
    }

    /// Why the file cannot count as sent whole, once read to its end (nil: it is still the size offered).
    func changed() -> SourceFailure? {
        var info = stat()
        if fstat(fd, &info) != 0 || UInt64(info.st_size) != size {
            return SourceFailure("'\(path)' changed while being sent; send it again")
        }
        return nil
    }

    private func readFailure(_ got: Int) -> SourceFailure {
        let reason = got == 0 ? "it became shorter while being sent" : POSIX.errorText(Int32(-got))
        return SourceFailure("cannot read '\(path)': \(reason)")
    }
}

/// Why a file of a send could not be read as offered (the message the receiver and the user see).
struct SourceFailure: Error, Sendable {
    let message: String

    init(_ message: String) { self.message = message }
}
