/// A validated list of entries: what a sender offers and a receiver writes.
///
/// Creating a manifest checks every rule of docs/PROTOCOL.md §4 (safe paths, parents listed
/// first, items contiguous, no case or Unicode collisions, links that stay inside their bundle,
/// modes, sizes and limits). A `Manifest` value is therefore safe to act on.
public struct Manifest: Sendable, Hashable {
    /// Entries in offer order (pre-order: every folder precedes its contents).
    public let entries: [ManifestEntry]
    /// The items (top-level entries) in offer order.
    public let items: [ManifestItem]
    /// For the k-th file of the transfer, its index in ``entries``.
    public let fileEntryIndices: [Int]
    /// The sum of all file sizes.
    public let totalBytes: UInt64

    /// The number of files.
    public var fileCount: Int { fileEntryIndices.count }

    /// Validates `entries`.
    /// - Parameters:
    ///   - entries: entries in offer order.
    ///   - declaredTotal: the total the peer declared, checked against the sum of sizes.
    ///   - limits: the bounds to enforce.
    /// - Throws: ``ManifestError`` naming the first rule broken.
    public init(entries: [ManifestEntry], declaredTotal: UInt64? = nil, limits: ManifestLimits = .protocolV1)
        throws(ManifestError)
    {
        if entries.isEmpty { throw .empty }
        if entries.count > limits.maxEntries { throw .tooManyEntries(count: entries.count, limit: limits.maxEntries) }

        var items: [ManifestItem] = []
        var fileEntryIndices: [Int] = []
        fileEntryIndices.reserveCapacity(entries.count)
        var directories = Set<String>()
        var seen = [String: String]()  // collision key -> first path
        seen.reserveCapacity(entries.count)
        var total: UInt64 = 0
        var linkIndices: [Int] = []

        for (index, entry) in entries.enumerated() {
            let path = entry.path
            if let problem = PathRules.problem(in: path, limits: limits) {
                throw .invalidPath(path: path, problem: problem)
            }
            let key = PathRules.collisionKey(path)
            if let other = seen[key] {
                throw other.utf8.elementsEqual(path.utf8) ? .duplicatePath(path: path) : .collidingPaths(path: path, other: other)
            }
            seen[key] = path
            if entry.mode & ~0o777 != 0 { throw .invalidMode(path: path, mode: entry.mode) }
            if entry.modificationNanoseconds >= 1_000_000_000 { throw .invalidTime(path: path) }
            if entry.kind != .file && entry.size != 0 { throw .sizeOnNonFile(path: path) }
            if entry.kind != .symlink && !entry.linkTarget.isEmpty { throw .linkTargetOnNonLink(path: path) }

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
                if !entry.declaredType.isEmpty { throw .typeOnNestedEntry(path: path) }
                // Byte for byte: Swift's `==` and `Set` equate canonically equivalent strings
                // (`é` and `e` + U+0301), the filesystem does not.
                let parent = Self.parentPath(of: path)
                guard let folder = directories.firstIndex(of: parent), directories[folder].utf8.elementsEqual(parent.utf8)
                else { throw .missingParent(path: path) }
                guard let current = items.last, Self.topComponent(of: path).utf8.elementsEqual(current.name.utf8) else {
                    throw .notContiguous(path: path)
                }
                items[items.count - 1].entryRange = current.entryRange.lowerBound..<(index + 1)
            }

            switch entry.kind {
            case .directory:
                directories.insert(path)
            case .file:
                if entry.size > limits.maxTotalBytes { throw .tooLarge(bytes: entry.size, limit: limits.maxTotalBytes) }
                let (sum, overflow) = total.addingReportingOverflow(entry.size)
                if overflow || sum > limits.maxTotalBytes { throw .tooLarge(bytes: sum, limit: limits.maxTotalBytes) }
                total = sum
                fileEntryIndices.append(index)
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
                linkIndices.append(index)
            }
        }
        if let declaredTotal, declaredTotal != total { throw .totalMismatch(declared: declaredTotal, actual: total) }

        if !linkIndices.isEmpty {
            var links = [String: String]()
            for index in linkIndices { links[PathRules.collisionKey(entries[index].path)] = entries[index].linkTarget }
            for index in linkIndices {
                let entry = entries[index]
                if !LinkResolver.staysInside(linkPath: entry.path, target: entry.linkTarget, links: links) {
                    throw .linkLeavesBundle(path: entry.path, target: entry.linkTarget)
                }
            }
        }

        self.entries = entries
        self.items = items
        self.fileEntryIndices = fileEntryIndices
        self.totalBytes = total
    }

    /// The item that holds entry `index`.
    public func itemIndex(ofEntry index: Int) -> Int? {
        items.firstIndex { $0.entryRange.contains(index) }
    }

    /// Whether `identifier` is a well-formed type identifier: ASCII letters, digits, `.` and `-`.
    public static func isValidTypeIdentifier(_ identifier: String, limits: ManifestLimits = .protocolV1) -> Bool {
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
