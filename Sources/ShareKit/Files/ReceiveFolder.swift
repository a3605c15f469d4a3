import Foundation

import ShareSystem

#if canImport(Glibc)
import Glibc
#endif

/// The receive folder, opened once when `share receive` starts and used through its descriptor
/// from then on: documents are created and renamed relative to it, so replacing the folder (with a
/// symbolic link to another one, say) while the receiver runs cannot redirect them. Before each
/// placement the receiver checks that the folder's path still names this folder; if it was removed
/// or replaced, the document stays in the inbox and the user is told (docs/SECURITY.md).
///
/// The descriptor is closed when the value is deallocated; it is only read, hence `Sendable`.
public final class ReceiveFolder: Sendable {
    /// The folder's absolute path, as the user gave it.
    public let path: String
    /// The open folder.
    let descriptor: Int32
    private let device: UInt64
    private let inode: UInt64

    /// Opens `path` (which must exist and be a folder).
    /// - Throws: ``ReceiveError/destinationUnusable(path:reason:)``.
    public init(path: String) throws(ReceiveError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .destinationUnusable(path: path, reason: POSIX.errorText()) }
        let info: FileStatus
        do {
            info = try FileStatus(descriptor: fd, path: path)
        } catch {
            close(fd)
            throw .destinationUnusable(path: path, reason: error.code.description)
        }
        self.path = path
        descriptor = fd
        device = info.device
        inode = info.inode
    }

    deinit { close(descriptor) }

    /// Why the folder's path no longer names the folder opened at the start (removed, or replaced),
    /// or nil when it still does.
    public func problem() -> String? {
        if let opened = try? FileStatus(descriptor: descriptor, path: path), opened.linkCount == 0 {
            return "the receive folder '\(path)' was removed after 'share receive' started"
        }
        let now: FileStatus
        do {
            now = try FileStatus(path: path)
        } catch {
            return "the receive folder '\(path)' is gone since 'share receive' started (\(error.code))"
        }
        if now.device != device || now.inode != inode {
            return "the receive folder '\(path)' was replaced by another folder or a link after 'share receive' started"
        }
        return nil
    }
}
