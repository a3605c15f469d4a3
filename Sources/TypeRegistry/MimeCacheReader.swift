/// Reads shared-mime-info's compiled database, `mime.cache`: the binary file `update-mime-database`
/// writes beside the package XML and GLib's xdgmime maps (Shared MIME-info Database spec §2.9,
/// version 1.1 and 1.2). It holds the aliases, parents, globs (literal names, a reverse suffix
/// tree, other patterns) and magic of every type, but no comments.
///
/// Every offset is checked against the file's size, the suffix tree and nested matches are walked
/// with depth and node budgets, so a damaged or hostile cache throws instead of crashing or looping.
struct MimeCacheReader {
    private let bytes: [UInt8]
    private let source: String
    /// Nodes of the suffix tree and magic matches visited so far, bounded by ``maximumNodes``.
    private var visited = 0

    static let maximumNodes = 1 << 20
    static let maximumDepth = 256
    static let maximumListLength = 1 << 18

    init(bytes: [UInt8], source: String) {
        self.bytes = bytes
        self.source = source
    }

    /// Every type the cache mentions, with its globs, magic, parents and aliases.
    mutating func definitions() throws(MimeCacheError) -> [String: MimeTypeDefinition] {
        guard bytes.count >= 40 else { throw .damaged(source, "shorter than its header") }
        let major = try u16(0)
        let minor = try u16(2)
        guard major == 1, minor == 1 || minor == 2 else {
            throw .unsupportedVersion(source, major: major, minor: minor)
        }
        var result: [String: MimeTypeDefinition] = [:]
        let source = self.source
        func edit(_ mimeType: String, _ change: (inout MimeTypeDefinition) -> Void) {
            guard let canonical = MIMEType.normalize(mimeType) else { return }
            if result[canonical] == nil {
                var definition = MimeTypeDefinition(mimeType: canonical)
                definition.sources = [source]
                result[canonical] = definition
            }
            change(&result[canonical]!)
        }

        // Aliases: alias → canonical type.
        let aliasList = try u32(4)
        for index in 0..<(try count(at: aliasList, entrySize: 8)) {
            let entry = aliasList + 4 + 8 * index
            let alias = try string(at: try u32(entry))
            let canonical = try string(at: try u32(entry + 4))
            guard let normalized = MIMEType.normalize(alias) else { continue }
            edit(canonical) { if !$0.aliases.contains(normalized) { $0.aliases.append(normalized) } }
        }

        // Parents.
        let parentList = try u32(8)
        for index in 0..<(try count(at: parentList, entrySize: 8)) {
            let entry = parentList + 4 + 8 * index
            let child = try string(at: try u32(entry))
            let parents = try u32(entry + 4)
            for parentIndex in 0..<(try count(at: parents, entrySize: 4)) {
                let parent = try string(at: try u32(parents + 4 + 4 * parentIndex))
                guard let normalized = MIMEType.normalize(parent) else { continue }
                edit(child) { if !$0.parents.contains(normalized) { $0.parents.append(normalized) } }
            }
        }

        // Literal names and other patterns: (pattern, type, weight and flags).
        for listOffset in [try u32(12), try u32(20)] {
            for index in 0..<(try count(at: listOffset, entrySize: 12)) {
                let entry = listOffset + 4 + 12 * index
                let pattern = try string(at: try u32(entry))
                let mimeType = try string(at: try u32(entry + 4))
                let glob = Self.glob(pattern, weightAndFlags: try u32(entry + 8))
                edit(mimeType) { if !$0.globs.contains(glob) { $0.globs.append(glob) } }
            }
        }

        // `*suffix` patterns, stored as a tree of their characters, last character first.
        let tree = try u32(16)
        var suffixGlobs: [(mimeType: String, glob: MimeGlob)] = []
        try walkSuffixTree(
            count: try u32(tree), offset: try u32(tree + 4), suffix: [], depth: 0, into: &suffixGlobs)
        for (mimeType, glob) in suffixGlobs {
            edit(mimeType) { if !$0.globs.contains(glob) { $0.globs.append(glob) } }
        }

        // Magic: (priority, type, matchlets).
        let magic = try u32(24)
        let matchCount = try u32(magic)
        guard matchCount <= Self.maximumListLength else { throw .damaged(source, "too many magic entries") }
        let firstMatch = try u32(magic + 8)
        for index in 0..<matchCount {
            let entry = firstMatch + 16 * index
            let priority = try u32(entry)
            let mimeType = try string(at: try u32(entry + 4))
            let matches = try matchlets(count: try u32(entry + 8), offset: try u32(entry + 12), depth: 0)
            guard !matches.isEmpty else { continue }
            let rule = MagicRule(priority: min(priority, 100), matches: matches)
            edit(mimeType) { $0.magic.append(rule) }
        }
        return result
    }

    // MARK: - Pieces

    private static func glob(_ pattern: String, weightAndFlags: Int) -> MimeGlob {
        MimeGlob(pattern: pattern, weight: weightAndFlags & 0xFF, caseSensitive: weightAndFlags & 0x100 != 0)
    }

    private mutating func walkSuffixTree(
        count: Int, offset: Int, suffix: [Unicode.Scalar], depth: Int,
        into globs: inout [(mimeType: String, glob: MimeGlob)]
    ) throws(MimeCacheError) {
        guard depth < Self.maximumDepth else { throw .damaged(source, "the suffix tree is too deep") }
        guard count <= Self.maximumListLength else {
            throw .damaged(source, "a suffix tree node has too many children")
        }
        for index in 0..<count {
            visited += 1
            guard visited <= Self.maximumNodes else { throw .damaged(source, "the suffix tree is too large") }
            let node = offset + 12 * index
            let character = try u32(node)
            if character == 0 {
                // A leaf: the suffix read so far (reversed) is a whole pattern.
                let mimeType = try string(at: try u32(node + 4))
                let pattern = "*" + String(String.UnicodeScalarView(suffix.reversed()))
                globs.append((mimeType, Self.glob(pattern, weightAndFlags: try u32(node + 8))))
                continue
            }
            guard let scalar = Unicode.Scalar(UInt32(truncatingIfNeeded: character)) else {
                throw .damaged(source, "the suffix tree holds an invalid character")
            }
            try walkSuffixTree(
                count: try u32(node + 4), offset: try u32(node + 8), suffix: suffix + [scalar], depth: depth + 1,
                into: &globs)
        }
    }

    private mutating func matchlets(count: Int, offset: Int, depth: Int) throws(MimeCacheError) -> [MagicMatch] {
        guard depth < 32 else { throw .damaged(source, "magic matches are nested too deeply") }
        guard count <= Self.maximumListLength else { throw .damaged(source, "too many magic matches") }
        var result: [MagicMatch] = []
        for index in 0..<count {
            visited += 1
            guard visited <= Self.maximumNodes else { throw .damaged(source, "the magic is too large") }
            let entry = offset + 32 * index
            let start = try u32(entry)
            let length = max(1, try u32(entry + 4))
            let wordSize = try u32(entry + 8)
            let valueLength = try u32(entry + 12)
            var value = try slice(at: try u32(entry + 16), length: valueLength)
            let maskOffset = try u32(entry + 20)
            var mask = maskOffset == 0 ? nil : try slice(at: maskOffset, length: valueLength)
            // Host-order values are stored big-endian with their word size; swap them on this machine.
            if wordSize > 1, 1.littleEndian == 1, valueLength % wordSize == 0 {
                value = Self.swapped(value, wordSize: wordSize)
                mask = mask.map { Self.swapped($0, wordSize: wordSize) }
            }
            let children = try matchlets(count: try u32(entry + 24), offset: try u32(entry + 28), depth: depth + 1)
            guard !value.isEmpty, start <= SharedMimeInfoParser.maximumOffset,
                length <= SharedMimeInfoParser.maximumRange
            else { continue }
            result.append(
                MagicMatch(
                    kind: .string, offsets: start...(start + length - 1), value: value, mask: mask,
                    children: children))
        }
        return result
    }

    private static func swapped(_ bytes: [UInt8], wordSize: Int) -> [UInt8] {
        stride(from: 0, to: bytes.count, by: wordSize).flatMap { bytes[$0..<($0 + wordSize)].reversed() }
    }

    // MARK: - Reading

    private func count(at offset: Int, entrySize: Int) throws(MimeCacheError) -> Int {
        let count = try u32(offset)
        guard count <= Self.maximumListLength, offset + 4 + count * entrySize <= bytes.count else {
            throw .damaged(source, "a list at offset \(offset) runs past the end")
        }
        return count
    }

    private func u16(_ offset: Int) throws(MimeCacheError) -> Int {
        guard offset >= 0, offset + 2 <= bytes.count else { throw .damaged(source, "offset \(offset) is out of range") }
        return Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
    }

    private func u32(_ offset: Int) throws(MimeCacheError) -> Int {
        guard offset >= 0, offset + 4 <= bytes.count else { throw .damaged(source, "offset \(offset) is out of range") }
        return Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8
            | Int(bytes[offset + 3])
    }

    private func slice(at offset: Int, length: Int) throws(MimeCacheError) -> [UInt8] {
        guard offset >= 0, length >= 0, length <= 1 << 16, offset + length <= bytes.count else {
            throw .damaged(source, "a value at offset \(offset) runs past the end")
        }
        return Array(bytes[offset..<(offset + length)])
    }

    /// The NUL-terminated UTF-8 string at `offset`.
    private func string(at offset: Int) throws(MimeCacheError) -> String {
        guard offset >= 0, offset < bytes.count else { throw .damaged(source, "offset \(offset) is out of range") }
        guard let end = bytes[offset...].prefix(4096).firstIndex(of: 0) else {
            throw .damaged(source, "a string at offset \(offset) does not end")
        }
        return String(decoding: bytes[offset..<end], as: UTF8.self)
    }
}
