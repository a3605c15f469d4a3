/// Why an archive could not be read, written or extracted.
public enum ArchiveError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The archive file could not be opened.
    case cannotOpen(path: String, reason: String)
    /// The bytes are not a supported archive, or it is damaged or truncated.
    case unreadable(reason: String)
    /// An entry's name is unusable: absolute, with `..`, empty components, control characters, too long, not UTF-8.
    case unsafePath(path: String, problem: String)
    /// Two entries have the same path (or paths equal ignoring case and Unicode form).
    case duplicatePath(path: String)
    /// A hard link, which could point anywhere.
    case hardLink(path: String)
    /// A device, FIFO or socket.
    case specialFile(path: String)
    /// A symbolic link that is absolute or leads outside the archive's tree.
    case linkLeavesTree(path: String, target: String)
    /// More entries than allowed.
    case tooManyEntries(limit: Int)
    /// More expanded content than allowed.
    case tooLarge(limit: UInt64)
    /// Writing the extracted files (or the archive) failed.
    case storageFailed(operation: String, path: String, reason: String)
    /// The archive's entries are encrypted and no password was given.
    case passwordRequired
    /// The archive's entries are encrypted and the password given does not open them.
    case wrongPassword

    /// A sentence for the user.
    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open the archive '\(path)': \(reason)"
        case .unreadable(let reason): "the archive is damaged or not a supported archive (\(reason))"
        case .unsafePath(let path, let problem):
            "the archive holds an unsafe name '\(path)' (\(problem)); nothing was kept"
        case .duplicatePath(let path): "the archive holds '\(path)' twice; nothing was kept"
        case .hardLink(let path): "the archive holds a hard link '\(path)', which is not allowed; nothing was kept"
        case .specialFile(let path):
            "the archive holds a device, FIFO or socket '\(path)', which is not allowed; nothing was kept"
        case .linkLeavesTree(let path, let target):
            "the archive holds a link '\(path)' to '\(target)', outside the archive; nothing was kept"
        case .tooManyEntries(let limit): "the archive holds more than \(limit) entries; nothing was kept"
        case .tooLarge(let limit): "the archive expands to more than \(limit) bytes; nothing was kept"
        case .storageFailed(let operation, let path, let reason): "\(operation) '\(path)' failed: \(reason)"
        case .passwordRequired: "the archive is protected by a password"
        case .wrongPassword: "the password does not open the archive"
        }
    }
}
