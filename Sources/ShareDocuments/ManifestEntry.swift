/// One file, folder or link of a transfer, as the sender describes it.
///
/// Paths are relative, `/`-separated, and start with the name of the item (top-level entry) the
/// entry belongs to. Nothing in an entry is trusted until ``Manifest/init(entries:limits:)`` has
/// validated it.
public struct ManifestEntry: Sendable, Hashable {
    /// File, folder or link.
    public var kind: EntryKind
    /// Relative path, `/`-separated; its first component is the item's name.
    public var path: String
    /// Permission bits (0...0o777); setuid, setgid and sticky are never carried.
    public var mode: UInt16
    /// Modification time, whole seconds since the Unix epoch.
    public var modificationSeconds: Int64
    /// Nanoseconds part of the modification time (0...999,999,999).
    public var modificationNanoseconds: UInt32
    /// Length in bytes for files; 0 for folders and links.
    public var size: UInt64
    /// The target of a link, relative; empty for files and folders.
    public var linkTarget: String
    /// The sender's declared type identifier (e.g. `public.pdf`) for top-level entries; empty
    /// when unknown or for entries inside a bundle.
    public var declaredType: String
    /// A note's text, as UTF-8 (empty for every other kind): it travels in the offer.
    public var content: [UInt8]

    /// Bytes of an encoded entry besides its strings: kind, path length, mode, modification time
    /// (seconds and nanoseconds), size, link target length, type length (docs/PROTOCOL.md §4).
    public static let fixedEncodedSize = 1 + 2 + 2 + 8 + 4 + 8 + 2 + 1

    /// The bytes this entry takes in an OFFER or ENTRIES frame.
    public var encodedSize: Int {
        Self.fixedEncodedSize + path.utf8.count + linkTarget.utf8.count + declaredType.utf8.count
            + (kind == .note ? content.count : 0)
    }

    /// Creates an entry; see the properties for the meaning of each value.
    public init(
        kind: EntryKind, path: String, mode: UInt16, modificationSeconds: Int64 = 0,
        modificationNanoseconds: UInt32 = 0, size: UInt64 = 0, linkTarget: String = "", declaredType: String = "",
        content: [UInt8] = []
    ) {
        self.kind = kind
        self.path = path
        self.mode = mode
        self.modificationSeconds = modificationSeconds
        self.modificationNanoseconds = modificationNanoseconds
        self.size = size
        self.linkTarget = linkTarget
        self.declaredType = declaredType
        self.content = content
    }

    /// A note: a top-level text item whose content travels in the offer.
    public static func note(
        name: String, text: String, mode: UInt16 = 0o644, modificationSeconds: Int64 = 0, declaredType: String = ""
    ) -> ManifestEntry {
        let bytes = Array(text.utf8)
        return ManifestEntry(
            kind: .note, path: name, mode: mode, modificationSeconds: modificationSeconds, size: UInt64(bytes.count),
            declaredType: declaredType, content: bytes)
    }

    /// The path's components (split on `/` scalars, as the kernel does: ``PathRules/components(of:omittingEmpty:)``).
    public var components: [Substring] { PathRules.components(of: path) }

    /// Whether this entry is an item of its own (its path has one component).
    public var isTopLevel: Bool { !path.utf8.contains(UInt8(ascii: "/")) }

    /// The last path component.
    public var name: Substring { components.last ?? Substring(path) }
}
