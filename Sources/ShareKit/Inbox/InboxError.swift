/// A problem with the inbox or one of its entries.
public enum InboxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The inbox folder cannot be created or opened.
    case unusable(path: String, reason: String)
    /// No entry has this identifier (or prefix).
    case noSuchEntry(String)
    /// Several entries start with this prefix.
    case ambiguous(String, matches: [String])
    /// The entry's metadata cannot be read.
    case damaged(id: String, reason: String)
    /// Another process (a receiver, or another `share inbox` command) is importing the entry right now.
    case busy(id: String)
    /// Writing or removing failed.
    case storageFailed(operation: String, path: String, reason: String)

    /// A sentence for the user.
    public var description: String {
        switch self {
        case .unusable(let path, let reason):
            "cannot use the inbox '\(path)': \(reason); check its permissions (or set XDG_DATA_HOME)"
        case .noSuchEntry(let id): "the inbox has no entry '\(id)'; 'share inbox list' shows what it holds"
        case .ambiguous(let id, let matches):
            "'\(id)' matches several inbox entries (\(matches.joined(separator: ", "))); give more of the identifier"
        case .damaged(let id, let reason):
            "the inbox entry '\(id)' is damaged (\(reason)); 'share inbox remove \(id)' deletes it"
        case .busy(let id): "the inbox entry '\(id)' is being imported right now; try again when that has finished"
        case .storageFailed(let operation, let path, let reason): "\(operation) '\(path)' failed: \(reason)"
        }
    }
}
