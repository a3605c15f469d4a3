/// A receiver-side failure to store what arrived.
public enum ReceiveError: Error, Sendable, CustomStringConvertible {
    /// The receive folder cannot be created, opened or written.
    case destinationUnusable(path: String, reason: String)
    /// Writing, syncing or renaming failed (disk full, permissions, I/O error).
    case storageFailed(operation: String, path: String, reason: String)
    /// Every alternative name up to the limit was taken.
    case noFreeName(name: String)

    public var description: String {
        switch self {
        case .destinationUnusable(let path, let reason):
            "cannot use the receive folder '\(path)': \(reason); choose another with --dir"
        case .storageFailed(let operation, let path, let reason): "\(operation) '\(path)' failed: \(reason)"
        case .noFreeName(let name): "every name from '\(name)' to '\(name) (9999)' is taken in the receive folder"
        }
    }

    /// What the sender is told: the problem, without local paths.
    public var messageForPeer: String {
        switch self {
        case .destinationUnusable(_, let reason): "the receiver cannot use its receive folder (\(reason))"
        case .storageFailed(_, _, let reason): "the receiver could not store the files (\(reason))"
        case .noFreeName: "the receiver has no free name left for the document"
        }
    }
}
