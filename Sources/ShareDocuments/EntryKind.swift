/// What a manifest entry is on disk.
public enum EntryKind: UInt8, Sendable, Hashable, Codable, CustomStringConvertible {
    /// A regular file with content.
    case file = 1
    /// A folder; a top-level folder is a bundle (one document).
    case directory = 2
    /// A symbolic link, kept only when it points inside its bundle.
    case symlink = 3
    /// A short text whose content travels in the offer (`share send --text`); it lands as a file.
    case note = 4

    public var description: String {
        switch self {
        case .file: "file"
        case .directory: "folder"
        case .symlink: "symbolic link"
        case .note: "note"
        }
    }

    /// Whether the entry lands as a regular file (a file or a note).
    public var isRegularFile: Bool { self == .file || self == .note }
}
