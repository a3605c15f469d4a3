/// What an extraction wrote.
public struct ExtractionSummary: Sendable, Hashable {
    /// The top-level names written into the folder, sorted.
    public var topLevelNames: [String]
    /// Regular files written.
    public var files: Int
    /// Folders created (implicit parents included).
    public var folders: Int
    /// Symbolic links created.
    public var links: Int
    /// Bytes of file content written.
    public var bytes: UInt64

    /// Creates a summary.
    public init(topLevelNames: [String], files: Int, folders: Int, links: Int, bytes: UInt64) {
        self.topLevelNames = topLevelNames
        self.files = files
        self.folders = folders
        self.links = links
        self.bytes = bytes
    }
}
