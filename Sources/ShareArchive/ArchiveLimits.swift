/// Bounds on what an archive may expand to, checked while it is read (before anything too big is written).
public struct ArchiveLimits: Sendable, Hashable {
    /// Entries (files, folders, links).
    public var maxEntries: Int
    /// Total bytes of file content once expanded (guards against zip bombs).
    public var maxTotalBytes: UInt64
    /// Bytes of UTF-8 in a path.
    public var maxPathBytes: Int
    /// Components in a path.
    public var maxDepth: Int

    /// Creates limits.
    public init(
        maxEntries: Int = 10_000, maxTotalBytes: UInt64 = 2 << 30, maxPathBytes: Int = 1_024, maxDepth: Int = 32
    ) {
        self.maxEntries = maxEntries
        self.maxTotalBytes = maxTotalBytes
        self.maxPathBytes = maxPathBytes
        self.maxDepth = maxDepth
    }

    /// 10,000 entries, 2 GiB of content, paths of at most 1,024 bytes and 32 components.
    public static let standard = ArchiveLimits()
}
