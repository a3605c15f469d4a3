/// A validated list of entries: what a sender offers and a receiver writes.
///
/// Creating a manifest checks every rule of docs/PROTOCOL.md §4 (safe paths, parents listed
/// first, items contiguous, no path listed twice, links that stay inside their bundle, notes,
/// modes, sizes and limits). A `Manifest` value is therefore safe to act on. Paths that differ only
/// in case are valid; ``caseCollisions`` lists them for a receiver whose folder ignores case.
public struct Manifest: Sendable, Hashable {
    /// Entries in offer order (pre-order: every folder precedes its contents).
    public let entries: [ManifestEntry]
    /// The items (top-level entries) in offer order.
    public let items: [ManifestItem]
    /// For the k-th file of the transfer, its index in ``entries``.
    public let fileEntryIndices: [Int]
    /// The sum of all file sizes.
    public let totalBytes: UInt64

    /// The number of files whose content travels as DATA (notes are not counted: their content is
    /// in the offer).
    public var fileCount: Int { fileEntryIndices.count }

    /// Validates `entries`.
    /// - Parameters:
    ///   - entries: entries in offer order.
    ///   - declaredTotal: the total the peer declared, checked against the sum of sizes.
    ///   - limits: the bounds to enforce.
    /// - Throws: ``ManifestError`` naming the first rule broken.
    public init(entries: [ManifestEntry], declaredTotal: UInt64? = nil, limits: ManifestLimits = .protocolDefault)
        throws(ManifestError)
    {
        if entries.isEmpty { throw .empty }
        if entries.count > limits.maxEntries { throw .tooManyEntries(count: entries.count, limit: limits.maxEntries) }
        let offerBytes = entries.reduce(0) { $0 + $1.encodedSize }
        if offerBytes > limits.maxOfferBytes { throw .offerTooLarge(bytes: offerBytes, limit: limits.maxOfferBytes) }

        var items: [ManifestItem] = []
        var fileEntryIndices: [Int] = []
        fileEntryIndices.reserveCapacity(entries.count)
        var directories = Set<PathRules.ExactKey>()
        var seen = Set<PathRules.ExactKey>()
        seen.reserveCapacity(entries.count)
        var folded = [String: String]()  // collision key -> first path
        folded.reserveCapacity(entries.count)
        var collisions: [(String, String)] = []
        var total: UInt64 = 0
        var links = LinkResolver()
        var linkIndices: [Int] = []

        for (index, entry) in entries.enumerated() {
            let path = entry.path
            if let problem = PathRules.problem(in: path, limits: limits) {
                throw .invalidPath(path: path, problem: problem)
            }
            let exactKey = PathRules.ExactKey(path)
            if !seen.insert(exactKey).inserted { throw .duplicatePath(path: path) }
            let key = PathRules.collisionKey(path)
            if let other = folded[key] {
                if collisions.count < Self.collisionsKept { collisions.append((other, path)) }
            } else {
                folded[key] = path
            }
            if entry.mode & ~0o777 != 0 { throw .invalidMode(path: path, mode: entry.mode) }
            if entry.modificationNanoseconds >= 1_000_000_000 { throw .invalidTime(path: path) }
            if !entry.kind.isRegularFile && entry.size != 0 { throw .sizeOnNonFile(path: path) }
            if entry.kind != .symlink && !entry.linkTarget.isEmpty { throw .linkTargetOnNonLink(path: path) }
            if entry.kind == .note {
                try Self.checkNote(entry, limits: limits)
            } else if !entry.content.isEmpty {
                throw .invalidNote(path: path, reason: "is not a note but carries content")
            }

            if entry.isTopLevel {
                if entry.kind == .symlink { throw .topLevelLink(path: path) }
                if !entry.declaredType.isEmpty && !Self.isValidTypeIdentifier(entry.declaredType, limits: limits) {
                    throw .invalidTypeIdentifier(path: path, identifier: entry.declaredType)
                }
                if items.count == limits.maxItems { throw .tooManyItems(count: items.count + 1, limit: limits.maxItems) }
                items.append(
                    ManifestItem(
                        name: path, kind: entry.kind, entryRange: index..<(index + 1), declaredType: entry.declaredType,
                        fileCount: 0, byteCount: 0))
            } else {
                if entry.kind == .note { throw .invalidNote(path: path, reason: "is inside a folder") }
                if !entry.declaredType.isEmpty { throw .typeOnNestedEntry(path: path) }
                // Byte for byte: Swift's `==` and `Set` equate canonically equivalent strings
                // (`é` and `e` + U+0301), the filesystem does not.
                guard directories.contains(PathRules.ExactKey(Self.parentPath(of: path))) else {
                    throw .missingParent(path: path)
                }
                guard let current = items.last, Self.topComponent(of: path).utf8.elementsEqual(current.name.utf8) else {
                    throw .notContiguous(path: path)
                }
                items[items.count - 1].entryRange = current.entryRange.lowerBound..<(index + 1)
            }

            switch entry.kind {
            case .directory:
                directories.insert(exactKey)
            case .file, .note:
                if entry.size > limits.maxTotalBytes { throw .tooLarge(bytes: entry.size, limit: limits.maxTotalBytes) }
                let (sum, overflow) = total.addingReportingOverflow(entry.size)
                if overflow || sum > limits.maxTotalBytes { throw .tooLarge(bytes: sum, limit: limits.maxTotalBytes) }
                total = sum
                if entry.kind == .file { fileEntryIndices.append(index) }
                items[items.count - 1].fileCount += 1
                items[items.count - 1].byteCount += entry.size
            case .symlink:
                let target = entry.linkTarget
                if target.isEmpty || target.utf8.first == UInt8(ascii: "/")
                    || target.utf8.count > limits.maxLinkTargetBytes
                    || target.unicodeScalars.contains(where: PathRules.isForbidden)
                {
                    throw .invalidLinkTarget(path: path)
                }
                links.add(linkAt: path, target: target)
                linkIndices.append(index)
            }
        }
        if let declaredTotal, declaredTotal != total { throw .totalMismatch(declared: declaredTotal, actual: total) }

        for index in linkIndices {
            let entry = entries[index]
            if !links.staysInside(linkPath: entry.path, target: entry.linkTarget) {
                throw .linkLeavesBundle(path: entry.path, target: entry.linkTarget)
            }
        }

        self.entries = entries
        self.items = items
        self.fileEntryIndices = fileEntryIndices
        self.totalBytes = total
        self.caseCollisions = collisions.map { CaseCollision(first: $0.0, second: $0.1) }
    }

    /// How many case collisions ``caseCollisions`` keeps (enough to name them in a message).
    public static let collisionsKept = 20

    /// Two paths of the offer that differ only in case or Unicode form: valid, but a folder that
    /// ignores case (ext4 casefold, vfat) cannot hold both.
    public struct CaseCollision: Sendable, Hashable {
        /// The path listed first.
        public var first: String
        /// The path listed later that collides with it.
        public var second: String

        /// Creates a pair.
        public init(first: String, second: String) {
            self.first = first
            self.second = second
        }
    }

    /// The first ``collisionsKept`` pairs of paths that differ only in case or Unicode form (empty
    /// when there are none).
    public let caseCollisions: [CaseCollision]

    private static func checkNote(_ entry: ManifestEntry, limits: ManifestLimits) throws(ManifestError) {
        if entry.content.count > limits.maxNoteBytes {
            throw .invalidNote(path: entry.path, reason: "holds \(entry.content.count) bytes (the limit is \(limits.maxNoteBytes))")
        }
        if entry.size != UInt64(entry.content.count) {
            throw .invalidNote(path: entry.path, reason: "declares \(entry.size) bytes but carries \(entry.content.count)")
        }
        if String(validating: entry.content, as: UTF8.self) == nil {
            throw .invalidNote(path: entry.path, reason: "is not valid UTF-8 text")
        }
    }

    /// The item that holds entry `index` (a binary search: items are contiguous and in order).
    public func itemIndex(ofEntry index: Int) -> Int? {
        var low = 0
        var high = items.count
        while low < high {
            let middle = (low + high) / 2
            let range = items[middle].entryRange
            if index < range.lowerBound {
                high = middle
            } else if index >= range.upperBound {
                low = middle + 1
            } else {
                return middle
            }
        }
        return nil
    }

    /// Whether `identifier` is a well-formed type identifier: ASCII letters, digits, `.` and `-`.
    public static func isValidTypeIdentifier(_ identifier: String, limits: ManifestLimits = .protocolDefault) -> Bool {
        let utf8 = identifier.utf8
        guard !utf8.isEmpty, utf8.count <= limits.maxTypeIdentifierBytes else { return false }
        return utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
        }
    }

    static func parentPath(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        return String(path[path.startIndex..<slash])
    }

    static func topComponent(of path: String) -> Substring {
        guard let slash = path.utf8.firstIndex(of: UInt8(ascii: "/")) else { return Substring(path) }
        return path[path.startIndex..<slash]
    }
}
