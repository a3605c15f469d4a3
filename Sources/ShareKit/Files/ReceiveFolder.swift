import Foundation

#if canImport(Glibc)
import Glibc
import ShareSystem
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
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let reason = POSIX.errorText()
            close(fd)
            throw .destinationUnusable(path: path, reason: reason)
        }
        self.path = path
        descriptor = fd
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    deinit { close(descriptor) }

    /// Why the folder's path no longer names the folder opened at the start (removed, or replaced),
    /// or nil when it still does.
    public func problem() -> String? {
        var opened = stat()
        if fstat(descriptor, &opened) == 0 && opened.st_nlink == 0 {
            return "the receive folder '\(path)' was removed after 'share receive' started"
        }
        var now = stat()
        guard stat(path, &now) == 0 else {
            return "the receive folder '\(path)' is gone since 'share receive' started (\(POSIX.errorText()))"
        }
        if UInt64(now.st_dev) != device || UInt64(now.st_ino) != inode {
            return "the receive folder '\(path)' was replaced by another folder or a link after 'share receive' started"
        }
        return nil
    }
}
