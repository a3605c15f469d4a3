/// The bounds a manifest must respect (docs/PROTOCOL.md §7).
///
/// Receivers check these before allocating anything that depends on them.
public struct ManifestLimits: Sendable, Hashable {
    /// Entries (files, folders, links) per offer.
    public var maxEntries: Int
    /// Top-level items per offer.
    public var maxItems: Int
    /// Bytes of UTF-8 in a path.
    public var maxPathBytes: Int
    /// Bytes of UTF-8 in one path component.
    public var maxComponentBytes: Int
    /// Components in a path.
    public var maxDepth: Int
    /// Bytes of UTF-8 in a link target.
    public var maxLinkTargetBytes: Int
    /// Bytes in a declared type identifier.
    public var maxTypeIdentifierBytes: Int
    /// Largest total (and file) size.
    public var maxTotalBytes: UInt64
    /// Bytes of UTF-8 in a note's content.
    public var maxNoteBytes: Int
    /// Bytes the entries take on the wire, all together (``ManifestEntry/encodedSize``): what a
    /// receiver holds in memory before it decides.
    public var maxOfferBytes: Int

    /// Creates limits; the defaults are those of the protocol (docs/PROTOCOL.md §11).
    public init(
        maxEntries: Int = 1_000_000, maxItems: Int = 100_000, maxPathBytes: Int = 4_096, maxComponentBytes: Int = 255,
        maxDepth: Int = 64, maxLinkTargetBytes: Int = 4_096, maxTypeIdentifierBytes: Int = 255,
        maxTotalBytes: UInt64 = 1 << 62, maxNoteBytes: Int = 16_384, maxOfferBytes: Int = 256 << 20
    ) {
        self.maxEntries = maxEntries
        self.maxItems = maxItems
        self.maxPathBytes = maxPathBytes
        self.maxComponentBytes = maxComponentBytes
        self.maxDepth = maxDepth
        self.maxLinkTargetBytes = maxLinkTargetBytes
        self.maxTypeIdentifierBytes = maxTypeIdentifierBytes
        self.maxTotalBytes = maxTotalBytes
        self.maxNoteBytes = maxNoteBytes
        self.maxOfferBytes = maxOfferBytes
    }

    /// The limits of the protocol (docs/PROTOCOL.md §11).
    public static let protocolDefault = ManifestLimits()
}
