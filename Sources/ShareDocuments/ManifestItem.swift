/// One document of a transfer: a file, or a folder sent as one bundle with everything below it.
public struct ManifestItem: Sendable, Hashable {
    /// The item's name (its top-level path component).
    public var name: String
    /// File or folder (a bundle).
    public var kind: EntryKind
    /// The indices of the item's entries in ``Manifest/entries``; the first is the item itself.
    public var entryRange: Range<Int>
    /// The sender's declared type identifier, or empty.
    public var declaredType: String
    /// How many files the item holds.
    public var fileCount: Int
    /// How many bytes its files hold.
    public var byteCount: UInt64

    /// Whether the item is a folder sent as one document.
    public var isBundle: Bool { kind == .directory }
}
