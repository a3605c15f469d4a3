public import ShareDocuments

/// A file of a transfer and its SHA-256, checked by the receiver against the sender's.
public struct VerifiedFile: Sendable, Hashable {
    /// The file's path in the offer.
    public var path: String
    /// Its size.
    public var bytes: UInt64
    /// Lowercase hex SHA-256.
    public var sha256: String
}

/// Every file of a transfer with its verified SHA-256, in offer order: made when read from the
/// manifest and 32 bytes of digest per file, so a million files keep 32 MB of digests instead of a
/// million records of strings (docs/PERFORMANCE.md, "Offers of a million entries").
public struct VerifiedFiles: Sendable, RandomAccessCollection {
    /// Bytes of one SHA-256.
    static let digestSize = 32

    private let manifest: Manifest?
    private let digests: [UInt8]

    /// The files of `manifest`, whose digests are `digests` one after another.
    init(manifest: Manifest, digests: [UInt8]) {
        precondition(digests.count == manifest.fileCount * Self.digestSize, "one digest per file")
        self.manifest = manifest
        self.digests = digests
    }

    /// No files (a pairing).
    public init() {
        manifest = nil
        digests = []
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { digests.count / Self.digestSize }

    public subscript(index: Int) -> VerifiedFile {
        let entryIndex = manifest!.fileEntryIndices[index]
        let start = index * Self.digestSize
        return VerifiedFile(
            path: manifest!.entries.path(at: entryIndex), bytes: manifest!.entries.size(at: entryIndex),
            sha256: Hex.encode(Array(digests[start..<(start + Self.digestSize)])))
    }
}
