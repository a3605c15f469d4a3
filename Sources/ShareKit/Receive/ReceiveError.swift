/// A receiver-side failure to store what arrived.
public enum ReceiveError: Error, Sendable, CustomStringConvertible {
    /// The receive folder cannot be created, opened or written.
    case destinationUnusable(path: String, reason: String)
    /// Writing, syncing or renaming failed (disk full, permissions, I/O error).
    case storageFailed(operation: String, path: String, reason: String)
    /// Every alternative name up to the limit was taken.
    case noFreeName(name: String)
    /// The inbox (where transfers are staged and documents wait for their import) cannot be used.
    case inboxUnusable(path: String, reason: String)

    public var description: String {
        switch self {
        case .destinationUnusable(let path, let reason):
            "cannot use the receive folder '\(path)': \(reason); choose another with --dir"
        case .storageFailed(let operation, let path, let reason): "\(operation) '\(path)' failed: \(reason)"
        case .noFreeName(let name): "every name from '\(name)' to '\(name) (9999)' is taken in the receive folder"
        case .inboxUnusable(let path, let reason):
            "cannot use the inbox '\(path)': \(reason); check its permissions (or set XDG_DATA_HOME)"
        }
    }

    /// The underlying reason, without the path.
    var reason: String {
        switch self {
        case .destinationUnusable(_, let reason), .storageFailed(_, _, let reason), .inboxUnusable(_, let reason): reason
        case .noFreeName: "no free name is left"
        }
    }

    /// What the sender is told: the problem, without local paths.
    public var messageForPeer: String {
        switch self {
        case .destinationUnusable(_, let reason): "the receiver cannot use its receive folder (\(reason))"
        case .storageFailed(_, _, let reason): "the receiver could not store the files (\(reason))"
        case .noFreeName: "the receiver has no free name left for the document"
        case .inboxUnusable(_, let reason): "the receiver cannot use its inbox (\(reason))"
        }
    }
}
