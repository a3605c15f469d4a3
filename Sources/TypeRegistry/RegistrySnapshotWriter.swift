/// Lays out a registry's tables and its shared-mime-info database as a snapshot file, in the
/// format ``RegistrySnapshot`` reads in place.
struct RegistrySnapshotWriter {
    private var bytes = [UInt8](repeating: 0, count: RegistrySnapshot.headerSize)
    /// Blobs already written, by content, so that each distinct string is stored once.
    private var blobs: [[UInt8]: UInt32] = [:]
    /// Set when a value does not fit the format (a number beyond 32 bits, an inconsistent table).
    private var failed = false

    /// The snapshot of `tables` and `mimeTables` for `key`, or `nil` when a value does not fit.
    static func encode(tables: RegistryTables, mimeTables: MimeTables, key: String) -> [UInt8]? {
        var writer = RegistrySnapshotWriter()
        writer.set(.key, writer.string(key))
        writer.writeTypes(tables)
        writer.set(.mimeIndex, writer.map(tables.mimeIndex.map { ($0.key, writer.identifiers($0.value)) }))
        writer.set(.mimeToType, writer.map(tables.mimeToType.map { ($0.key, writer.string($0.value.rawValue)) }))
        writer.set(.literal, writer.map(tables.names.literal.map { ($0.key, writer.globEntries($0.value)) }))
        writer.set(.suffix, writer.map(tables.names.suffix.map { ($0.key, writer.globEntries($0.value)) }))
        writer.set(.complex, writer.globEntries(tables.names.complex.map(\.entry)))
        writer.set(.warnings, writer.list(tables.warnings.map { writer.warning($0) }))
        writer.writeSharedMimeInfo(mimeTables)
        return writer.finished()
    }

    // MARK: - Tables

    /// One entry per declared type, keyed by its normalized identifier, with its record, its
    /// declarers, its supertypes and its exporter, each with the key it has in its own table.
    private mutating func writeTypes(_ tables: RegistryTables) {
        let keys = Set(tables.records.keys)
        guard Set(tables.declarers.keys).isSubset(of: keys), Set(tables.ancestors.keys).isSubset(of: keys),
            Set(tables.exporters.keys).isSubset(of: keys)
        else {
            failed = true
            return
        }
        func storedKey<Value>(_ dictionary: [TypeIdentifier: Value], _ identifier: TypeIdentifier) -> UInt32 {
            dictionary.index(forKey: identifier).map { string(dictionary[$0].key.rawValue) } ?? 0
        }
        var entries: [(key: String, raw: UInt32, value: UInt32)] = []
        for (identifier, record) in tables.records {
            var words = [string(identifier.rawValue), string(record.identifier.rawValue)]
            words += [identifiers(record.conformsTo), strings(record.filenameExtensions), strings(record.mimeTypes)]
            words += [optional(record.description)] + origin(record.origin) + [record.isPackage ? 1 : 0]
            let declarers = (tables.declarers[identifier] ?? []).map { declarer($0) }
            words += [storedKey(tables.declarers, identifier), list(declarers)]
            words += [storedKey(tables.ancestors, identifier), identifiers(tables.ancestors[identifier] ?? [])]
            words += [storedKey(tables.exporters, identifier), optional(tables.exporters[identifier])]
            entries.append((identifier.normalized, words[0], row(words)))
        }
        set(.types, map(entries))
    }

    private mutating func writeSharedMimeInfo(_ tables: MimeTables) {
        var ruleOffsets: [String: [(rule: MagicRule, offset: UInt32)]] = [:]
        var definitions: [(key: String, value: UInt32)] = []
        for (mimeType, definition) in tables.definitions {
            var rules: [UInt32] = []
            for rule in definition.magic {
                let offset = magicRule(rule)
                ruleOffsets[mimeType, default: []].append((rule, offset))
                rules.append(offset)
            }
            let globs = definition.globs.map { row([string($0.pattern), number($0.weight), $0.caseSensitive ? 1 : 0]) }
            var words = [string(definition.mimeType), optional(definition.comment), optional(definition.acronym)]
            words += [optional(definition.expandedAcronym), optional(definition.genericIcon), list(globs), list(rules)]
            words += [strings(definition.aliases), strings(definition.parents), strings(definition.sources)]
            definitions.append((mimeType, row(words)))
        }
        set(.mimeDefinitions, map(definitions))
        set(.mimeAliases, map(tables.aliases.map { ($0.key, string($0.value)) }))
        set(.mimeWarnings, strings(tables.warnings))
        set(.mimeSources, strings(tables.sources))
        set(.mimeSortedTypes, strings(tables.sortedTypes))
        // The order rules are tried in, each pointing at its definition's copy of the rule.
        var order: [UInt32] = []
        for (mimeType, rule) in tables.magic {
            guard let index = ruleOffsets[mimeType]?.firstIndex(where: { $0.rule == rule }),
                let offset = ruleOffsets[mimeType]?.remove(at: index).offset
            else {
                failed = true
                return
            }
            order.append(row([string(mimeType), offset]))
        }
        set(.mimeMagic, list(order))
    }

    // MARK: - Values

    private mutating func identifiers(_ identifiers: [TypeIdentifier]) -> UInt32 {
        strings(identifiers.map(\.rawValue))
    }

    /// Kind, then two strings (the MIME type; the application and its declaration kind).
    private mutating func origin(_ origin: TypeOrigin) -> [UInt32] {
        switch origin {
        case .builtin: [0, 0, 0]
        case .sharedMimeInfo(let mimeType): [1, string(mimeType), 0]
        case .application(let id, let declaration): [2, string(id), string(declaration.rawValue)]
        case .dynamic: [3, 0, 0]
        }
    }

    private mutating func declarer(_ declarer: TypeDeclarer) -> UInt32 {
        row(origin(declarer.origin) + [declarer.isInUse ? 1 : 0])
    }

    private mutating func warning(_ warning: RegistryWarning) -> UInt32 {
        row([
            string(warning.kind.rawValue), identifiers(warning.types), strings(warning.applicationIDs),
            string(warning.message),
        ])
    }

    private mutating func globEntries(_ entries: [GlobIndex<GlobTarget>.Entry]) -> UInt32 {
        list(
            entries.map { entry in
                row([
                    string(entry.pattern), number(entry.weight), entry.caseSensitive ? 1 : 0,
                    string(entry.payload.type.rawValue), optional(entry.payload.mimeType), number(entry.priority),
                    number(entry.order),
                ])
            })
    }

    private mutating func magicRule(_ rule: MagicRule) -> UInt32 {
        row([number(rule.priority), list(rule.matches.map { magicMatch($0) })])
    }

    private mutating func magicMatch(_ match: MagicMatch) -> UInt32 {
        let children = list(match.children.map { magicMatch($0) })
        return row([
            string(match.kind.rawValue), number(match.offsets.lowerBound), number(match.offsets.upperBound),
            blob(match.value), match.mask.map { blob($0) } ?? 0, children,
        ])
    }

    // MARK: - Primitives

    private mutating func set(_ field: RegistrySnapshot.Field, _ value: UInt32) {
        put(value, at: field.rawValue)
    }

    private mutating func put(_ value: UInt32, at offset: Int) {
        for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
    }

    private mutating func append(_ value: UInt32) {
        for index in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }

    /// The offset the next value is written at; everything beyond 32 bits fails the snapshot.
    private mutating func here() -> UInt32 {
        number(bytes.count)
    }

    private mutating func number(_ value: Int) -> UInt32 {
        guard let word = UInt32(exactly: value), word != UInt32.max else {
            failed = true
            return 0
        }
        return word
    }

    /// Words written one after the other; returns where they start.
    private mutating func row(_ words: [UInt32]) -> UInt32 {
        let offset = here()
        for word in words { append(word) }
        return offset
    }

    /// A count, then the words.
    private mutating func list(_ words: [UInt32]) -> UInt32 {
        row([number(words.count)] + words)
    }

    /// A length, then the bytes; each distinct blob is written once.
    private mutating func blob(_ content: [UInt8]) -> UInt32 {
        if let known = blobs[content] { return known }
        let offset = here()
        append(number(content.count))
        bytes += content
        blobs[content] = offset
        return offset
    }

    private mutating func string(_ text: String) -> UInt32 {
        blob(Array(text.utf8))
    }

    /// A string, or 0 for none (no value is stored at offset 0, the file's magic number).
    private mutating func optional(_ text: String?) -> UInt32 {
        text.map { string($0) } ?? 0
    }

    private mutating func strings(_ texts: [String]) -> UInt32 {
        list(texts.map { string($0) })
    }

    /// A map: entries sorted by their key's bytes in normalization form C, so that a lookup is a
    /// binary search and finds exactly the keys a Swift dictionary would (String equality is
    /// canonical equivalence); each entry also keeps the key as it was stored.
    private mutating func map(_ entries: [(key: String, value: UInt32)]) -> UInt32 {
        map(entries.map { ($0.key, string($0.key), $0.value) })
    }

    private mutating func map(_ entries: [(key: String, raw: UInt32, value: UInt32)]) -> UInt32 {
        var sorted = entries.map { (sortKey: RegistrySnapshot.comparableBytes($0.key), raw: $0.raw, value: $0.value) }
        sorted.sort { $0.sortKey.lexicographicallyPrecedes($1.sortKey) }
        for index in sorted.indices.dropFirst() where sorted[index].sortKey == sorted[index - 1].sortKey {
            failed = true
        }
        let rows = sorted.map { row([blob($0.sortKey), $0.raw, $0.value]) }
        return list(rows)
    }

    private mutating func finished() -> [UInt8]? {
        guard !failed, bytes.count < Int(UInt32.max) else { return nil }
        bytes.replaceSubrange(0..<4, with: RegistrySnapshot.magicNumber)
        put(RegistrySnapshot.formatVersion, at: 4)
        put(UInt32(bytes.count), at: 8)
        let checksum = RegistrySnapshot.checksum(bytes)
        put(UInt32(truncatingIfNeeded: checksum), at: 12)
        put(UInt32(truncatingIfNeeded: checksum >> 32), at: 16)
        return bytes
    }
}
