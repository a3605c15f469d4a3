import Synchronization

/// A registry's merged tables and its shared-mime-info database in one file, read in place: a
/// lookup binary-searches the table it needs and decodes only the entries it touches, as GLib's
/// xdgmime reads `mime.cache`. Merging the ~850 types of shared-mime-info with the built-in and
/// registered types costs tens of milliseconds; reading one answer from a snapshot, microseconds.
///
/// The format (all numbers little-endian 32-bit words; a value is referred to by its offset, and
/// offset 0, the magic number, means "none"):
/// - header: `SHTR`, the format version, the file's length, a 64-bit checksum of everything
///   after it, then the offset of the key (what the snapshot was made from) and of each table
///   (``Field``);
/// - blob: a length, then the bytes (strings are UTF-8 blobs, each distinct one stored once);
/// - list: a count, then the words;
/// - map: a list of rows (key in normalization form C, key as stored, value), sorted by the first;
/// - row: a fixed number of words (a type's record, a glob, a magic rule...), see
///   ``RegistrySnapshotWriter``.
///
/// Every read is bounds-checked, so damaged bytes never crash; the checksum catches them first.
final class RegistrySnapshot: Sendable {
    /// The header's table offsets.
    enum Field: Int {
        case key = 20
        case types = 24
        case mimeIndex = 28
        case mimeToType = 32
        case literal = 36
        case suffix = 40
        case complex = 44
        case warnings = 48
        case mimeDefinitions = 52
        case mimeAliases = 56
        case mimeWarnings = 60
        case mimeSources = 64
        case mimeSortedTypes = 68
        case mimeMagic = 72
    }

    static let magicNumber: [UInt8] = Array("SHTR".utf8)
    static let formatVersion: UInt32 = 1
    static let headerSize = 76
    /// Magic matches nest at most this deep (the readers of both formats stop there too).
    static let maximumMagicDepth = 32

    /// What has been decoded as a whole, kept for later questions.
    private struct Decoded {
        var registry: RegistryTables?
        var mime: MimeTables?
        var complexGlobs: [(entry: GlobIndex<GlobTarget>.Entry, characters: [Character])]?
    }

    let bytes: [UInt8]
    private let decoded = Mutex(Decoded())

    /// Checks the header, the checksum and the key.
    init(bytes: [UInt8], key: String) throws(RegistrySnapshotError) {
        self.bytes = bytes
        guard bytes.count >= Self.headerSize, Array(bytes[0..<4]) == Self.magicNumber else { throw .notASnapshot }
        let version = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self).littleEndian }
        guard version == Self.formatVersion else { throw .unsupportedVersion(Int(version)) }
        let length = bytes.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: 8, as: UInt32.self).littleEndian) }
        guard length == bytes.count else { throw .damaged("\(bytes.count) bytes instead of \(length)") }
        let stored = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 12, as: UInt64.self).littleEndian }
        guard stored == Self.checksum(bytes) else { throw .damaged("the checksum does not match") }
        guard string(word(Field.key.rawValue)) == key else { throw .otherKey }
    }

    // MARK: - Registry lookups

    func record(_ identifier: TypeIdentifier) -> TypeRecord? {
        typeRow(identifier).map(record(row:))
    }

    func isDeclared(_ identifier: TypeIdentifier) -> Bool {
        typeRow(identifier) != nil
    }

    func declarers(_ identifier: TypeIdentifier) -> [TypeDeclarer]? {
        guard let row = typeRow(identifier), word(row + 40) != 0 else { return nil }
        return list(word(row + 44)).map(declarer(row:))
    }

    func ancestors(_ identifier: TypeIdentifier) -> [TypeIdentifier]? {
        guard let row = typeRow(identifier), word(row + 48) != 0 else { return nil }
        return identifiers(word(row + 52))
    }

    func exporter(_ identifier: TypeIdentifier) -> String? {
        guard let row = typeRow(identifier), word(row + 56) != 0 else { return nil }
        return optionalString(word(row + 60))
    }

    func types(taggedWith mimeType: String) -> [TypeIdentifier]? {
        lookup(.mimeIndex, mimeType).map(identifiers)
    }

    func type(forSharedMIMEType mimeType: String) -> TypeIdentifier? {
        lookup(.mimeToType, mimeType).map { TypeIdentifier(string($0)) }
    }

    func nameMatches(_ fileName: String) -> [GlobIndex<GlobTarget>.Entry] {
        GlobIndex<GlobTarget>.matches(
            fileName, literal: { lookup(.literal, $0).map(globEntries) ?? [] },
            suffix: { lookup(.suffix, $0).map(globEntries) ?? [] }, complex: complexGlobs)
    }

    func entries(forExtension ext: String) -> [GlobIndex<GlobTarget>.Entry] {
        GlobIndex<GlobTarget>.entries(forExtension: ext) { lookup(.suffix, $0).map(globEntries) ?? [] }
    }

    var warnings: [RegistryWarning] {
        list(word(Field.warnings.rawValue)).compactMap { row in
            guard let kind = RegistryWarning.Kind(rawValue: string(word(row))) else { return nil }
            return RegistryWarning(
                kind: kind, types: identifiers(word(row + 4)), applicationIDs: strings(word(row + 8)),
                message: string(word(row + 12)))
        }
    }

    /// Every table, decoded once.
    var registryTables: RegistryTables {
        if let known = decoded.withLock({ $0.registry }) { return known }
        var tables = RegistryTables()
        for (_, row) in mapRows(.types) {
            let record = record(row: row)
            tables.records[TypeIdentifier(string(word(row)))] = record
            if word(row + 40) != 0 {
                tables.declarers[TypeIdentifier(string(word(row + 40)))] = list(word(row + 44)).map(declarer(row:))
            }
            if word(row + 48) != 0 {
                tables.ancestors[TypeIdentifier(string(word(row + 48)))] = identifiers(word(row + 52))
            }
            if word(row + 56) != 0 { tables.exporters[TypeIdentifier(string(word(row + 56)))] = string(word(row + 60)) }
        }
        for (key, value) in mapRows(.mimeIndex) { tables.mimeIndex[key] = identifiers(value) }
        for (key, value) in mapRows(.mimeToType) { tables.mimeToType[key] = TypeIdentifier(string(value)) }
        // The glob index again, by inserting its entries in their original order.
        var globs = mapRows(.literal).flatMap { globEntries($0.value) }
        globs += mapRows(.suffix).flatMap { globEntries($0.value) } + complexGlobs.map(\.entry)
        for entry in globs.sorted(by: { $0.order < $1.order }) {
            tables.names.insert(
                pattern: entry.pattern, weight: entry.weight, caseSensitive: entry.caseSensitive,
                payload: entry.payload, priority: entry.priority)
        }
        tables.warnings = warnings
        decoded.withLock { $0.registry = tables }
        return tables
    }

    // MARK: - shared-mime-info lookups

    func canonicalMIMEType(ofAlias alias: String) -> String? {
        lookup(.mimeAliases, alias).map(string)
    }

    func mimeDefinition(_ canonical: String) -> MimeTypeDefinition? {
        lookup(.mimeDefinitions, canonical).map(definition(row:))
    }

    func mimeParents(_ canonical: String) -> [String] {
        lookup(.mimeDefinitions, canonical).map { strings(word($0 + 32)) } ?? []
    }

    func mimeHasMagic(_ canonical: String) -> Bool {
        lookup(.mimeDefinitions, canonical).map { word(word($0 + 24)) > 0 } ?? false
    }

    /// The types whose magic matches `content`, in the order the rules are tried, with the priority
    /// of the rule that matched (see ``SharedMimeInfo/sniff(_:)``); only the first when `firstOnly`.
    func sniff(_ content: [UInt8], firstOnly: Bool) -> [(mimeType: String, priority: Int)] {
        var found: [(mimeType: String, priority: Int)] = []
        var seen: Set<Int> = []
        content.withUnsafeBufferPointer { content in
            for entry in list(word(Field.mimeMagic.rawValue)) {
                let mimeType = word(entry)
                let rule = word(entry + 4)
                guard !seen.contains(mimeType), ruleMatches(rule, content) else { continue }
                found.append((string(mimeType), word(rule)))
                if firstOnly { return }
                seen.insert(mimeType)
            }
        }
        return found
    }

    /// The whole database, decoded once.
    var mimeTables: MimeTables {
        if let known = decoded.withLock({ $0.mime }) { return known }
        var tables = MimeTables()
        for (key, row) in mapRows(.mimeDefinitions) { tables.definitions[key] = definition(row: row) }
        for (key, value) in mapRows(.mimeAliases) { tables.aliases[key] = string(value) }
        tables.warnings = strings(word(Field.mimeWarnings.rawValue))
        tables.sources = strings(word(Field.mimeSources.rawValue))
        tables.sortedTypes = strings(word(Field.mimeSortedTypes.rawValue))
        tables.magic = list(word(Field.mimeMagic.rawValue)).map { (string(word($0)), magicRule(word($0 + 4))) }
        decoded.withLock { $0.mime = tables }
        return tables
    }

    /// The patterns that are neither literal names nor `*suffix`, decoded once.
    private var complexGlobs: [(entry: GlobIndex<GlobTarget>.Entry, characters: [Character])] {
        if let known = decoded.withLock({ $0.complexGlobs }) { return known }
        let globs = globEntries(word(Field.complex.rawValue)).map { ($0, Array(GlobIndex<GlobTarget>.key(of: $0))) }
        decoded.withLock { $0.complexGlobs = globs }
        return globs
    }

    // MARK: - Rows

    private func typeRow(_ identifier: TypeIdentifier) -> Int? {
        lookup(.types, identifier.normalized)
    }

    private func record(row: Int) -> TypeRecord {
        TypeRecord(
            identifier: TypeIdentifier(string(word(row + 4))), conformsTo: identifiers(word(row + 8)),
            filenameExtensions: strings(word(row + 12)), mimeTypes: strings(word(row + 16)),
            description: optionalString(word(row + 20)), origin: origin(row: row + 24), isPackage: word(row + 36) != 0)
    }

    private func origin(row: Int) -> TypeOrigin {
        switch word(row) {
        case 0: .builtin
        case 1: .sharedMimeInfo(mimeType: string(word(row + 4)))
        case 2:
            .application(
                id: string(word(row + 4)), declaration: DeclarationKind(rawValue: string(word(row + 8))) ?? .imported)
        default: .dynamic
        }
    }

    private func declarer(row: Int) -> TypeDeclarer {
        TypeDeclarer(origin: origin(row: row), isInUse: word(row + 12) != 0)
    }

    private func globEntries(_ offset: Int) -> [GlobIndex<GlobTarget>.Entry] {
        list(offset).map { row in
            let target = GlobTarget(
                type: TypeIdentifier(string(word(row + 12))), mimeType: optionalString(word(row + 16)))
            return GlobIndex<GlobTarget>.Entry(
                pattern: string(word(row)), weight: word(row + 4), caseSensitive: word(row + 8) != 0, payload: target,
                priority: word(row + 20), order: word(row + 24))
        }
    }

    private func definition(row: Int) -> MimeTypeDefinition {
        var definition = MimeTypeDefinition(mimeType: string(word(row)))
        definition.comment = optionalString(word(row + 4))
        definition.acronym = optionalString(word(row + 8))
        definition.expandedAcronym = optionalString(word(row + 12))
        definition.genericIcon = optionalString(word(row + 16))
        definition.globs = list(word(row + 20)).map {
            MimeGlob(pattern: string(word($0)), weight: word($0 + 4), caseSensitive: word($0 + 8) != 0)
        }
        definition.magic = list(word(row + 24)).map(magicRule)
        definition.aliases = strings(word(row + 28))
        definition.parents = strings(word(row + 32))
        definition.sources = strings(word(row + 36))
        return definition
    }

    private func magicRule(_ row: Int) -> MagicRule {
        MagicRule(priority: word(row), matches: list(word(row + 4)).map { magicMatch($0, depth: 0) })
    }

    private func magicMatch(_ row: Int, depth: Int) -> MagicMatch {
        let children = depth < Self.maximumMagicDepth ? list(word(row + 20)) : []
        let lower = word(row + 4)
        return MagicMatch(
            kind: MagicMatch.Kind(rawValue: string(word(row))) ?? .string, offsets: lower...max(lower, word(row + 8)),
            value: Array(blob(word(row + 12))), mask: word(row + 16) == 0 ? nil : Array(blob(word(row + 16))),
            children: children.map { magicMatch($0, depth: depth + 1) })
    }

    /// A rule's matches tried in place, without decoding them (the algorithm is
    /// ``MagicMatch/occurs(in:lower:upper:value:mask:andThen:)``).
    private func ruleMatches(_ row: Int, _ content: UnsafeBufferPointer<UInt8>) -> Bool {
        list(word(row + 4)).contains { matchMatches($0, content, depth: 0) }
    }

    private func matchMatches(_ row: Int, _ content: UnsafeBufferPointer<UInt8>, depth: Int) -> Bool {
        let value = blobRange(word(row + 12))
        let mask = word(row + 16) == 0 ? nil : blobRange(word(row + 16))
        let children = depth < Self.maximumMagicDepth ? list(word(row + 20)) : []
        return bytes.withUnsafeBufferPointer { file in
            let maskBytes = mask.map { UnsafeBufferPointer(rebasing: file[$0]) }
            return MagicMatch.occurs(
                in: content, lower: word(row + 4), upper: word(row + 8),
                value: UnsafeBufferPointer(rebasing: file[value]), mask: maskBytes
            ) { children.isEmpty || children.contains { matchMatches($0, content, depth: depth + 1) } }
        }
    }

    // MARK: - Reading

    /// The 32-bit word at `offset`; 0 when it is out of range.
    private func word(_ offset: Int) -> Int {
        guard offset >= 0, offset <= bytes.count - 4 else { return 0 }
        return bytes.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian) }
    }

    private func blobRange(_ offset: Int) -> Range<Int> {
        let length = word(offset)
        guard offset > 0, length <= bytes.count - offset - 4 else { return 0..<0 }
        return (offset + 4)..<(offset + 4 + length)
    }

    private func blob(_ offset: Int) -> ArraySlice<UInt8> {
        bytes[blobRange(offset)]
    }

    private func string(_ offset: Int) -> String {
        String(decoding: blob(offset), as: UTF8.self)
    }

    private func optionalString(_ offset: Int) -> String? {
        offset == 0 ? nil : string(offset)
    }

    /// The words of a list (none when it runs past the end).
    private func list(_ offset: Int) -> [Int] {
        let count = word(offset)
        guard offset > 0, count <= (bytes.count - offset - 4) / 4 else { return [] }
        return (0..<count).map { word(offset + 4 + 4 * $0) }
    }

    private func strings(_ offset: Int) -> [String] {
        list(offset).map(string)
    }

    private func identifiers(_ offset: Int) -> [TypeIdentifier] {
        list(offset).map { TypeIdentifier(string($0)) }
    }

    /// Every row of a map: its key as stored and its value.
    private func mapRows(_ field: Field) -> [(key: String, value: Int)] {
        list(word(field.rawValue)).map { (string(word($0 + 4)), word($0 + 8)) }
    }

    /// The value a map holds for `key` (equal as Swift compares strings), by binary search.
    private func lookup(_ field: Field, _ key: String) -> Int? {
        let map = word(field.rawValue)
        let count = word(map)
        guard map > 0, count <= (bytes.count - map - 4) / 4 else { return nil }
        return Self.withComparableBytes(key) { wanted in
            bytes.withUnsafeBufferPointer { file -> Int? in
                var low = 0
                var high = count
                while low < high {
                    let middle = (low + high) / 2
                    let row = word(map + 4 + 4 * middle)
                    let candidate = UnsafeBufferPointer(rebasing: file[blobRange(word(row))])
                    if candidate.elementsEqual(wanted) { return word(row + 8) }
                    if candidate.lexicographicallyPrecedes(wanted) { low = middle + 1 } else { high = middle }
                }
                return nil
            }
        }
    }

    // MARK: - Keys and checksum

    /// A key's bytes as maps sort and compare them: UTF-8 in normalization form C, so that keys
    /// equal as Swift Strings (canonically equivalent) have the same bytes.
    static func comparableBytes(_ key: String) -> [UInt8] {
        key.utf8.allSatisfy { $0 < 0x80 } ? Array(key.utf8) : key._nfcCodeUnits
    }

    private static func withComparableBytes<Result>(
        _ key: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        var key = key
        if key.utf8.allSatisfy({ $0 < 0x80 }) { return key.withUTF8(body) }
        return key._nfcCodeUnits.withUnsafeBufferPointer(body)
    }

    /// A 64-bit checksum of everything after the checksum field.
    static func checksum(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { raw in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            var offset = 20
            while offset + 8 <= raw.count {
                hash = (hash ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x9E37_79B9_7F4A_7C15
                hash = hash << 31 | hash >> 33
                offset += 8
            }
            while offset < raw.count {
                hash = (hash ^ UInt64(raw[offset])) &* 0x1000_0000_01B3
                offset += 1
            }
            return hash
        }
    }
}
