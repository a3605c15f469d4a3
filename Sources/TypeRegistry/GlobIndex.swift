/// Filename patterns indexed for fast lookup, with the selection rules of shared-mime-info's
/// reference implementation (GLib's xdgmime, which reads the same `mime.cache`):
///
/// 1. Literal names (`Makefile`) are matched before any pattern: first ignoring case, then the
///    case-sensitive ones in their case.
/// 2. Otherwise `*suffix` patterns: only those of the longest suffix that matches (so `*.tar.gz`
///    beats `*.gz`), compared lower-cased; when fewer than two types match that way, the
///    case-sensitive patterns of the longest matching suffix in the name's own case join them
///    (`main.C` matches both `*.c` and the C++ `*.C`).
/// 3. Other patterns (`*.anim[1-9j]`, `README*`) join when fewer than two types matched so far.
///
/// The matches are ordered by weight, highest first (then case-sensitive first, then source
/// preference and insertion order). Weights order the candidates; they do not drop any: when
/// several types match a name, the content decides between them (spec §2.12, as GLib does).
/// A suffix pattern needs at least one character before the suffix, so `.bashrc` is a name,
/// not the extension `bashrc`.
struct GlobIndex<Payload: Hashable & Sendable>: Sendable {
    struct Entry: Hashable, Sendable {
        let pattern: String
        let weight: Int
        let caseSensitive: Bool
        let payload: Payload
        /// Lower sorts first among equally good matches (source preference).
        let priority: Int
        /// Insertion order, the last tie-break.
        let order: Int
        var length: Int { pattern.count }
    }

    /// Literal names by key (lower-cased unless case-sensitive), entries in insertion order.
    private(set) var literal: [String: [Entry]] = [:]
    /// `*suffix` patterns by suffix (lower-cased unless case-sensitive), entries in insertion order.
    private(set) var suffix: [String: [Entry]] = [:]
    /// Other patterns, in insertion order, with the characters they are matched by.
    private(set) var complex: [(entry: Entry, characters: [Character])] = []
    private var count = 0

    /// Every entry, in insertion order.
    private(set) var entries: [Entry] = []

    mutating func insert(pattern: String, weight: Int, caseSensitive: Bool, payload: Payload, priority: Int) {
        guard !pattern.isEmpty else { return }
        let entry = Entry(
            pattern: pattern, weight: weight, caseSensitive: caseSensitive, payload: payload, priority: priority,
            order: count)
        count += 1
        entries.append(entry)
        let key = Self.key(of: entry)
        if !GlobPattern.hasWildcard(pattern) {
            literal[key, default: []].append(entry)
        } else if let tail = GlobPattern.simpleSuffix(key) {
            suffix[tail, default: []].append(entry)
        } else {
            complex.append((entry, Array(key)))
        }
    }

    /// The pattern as it is compared: lower-cased unless the glob is case-sensitive.
    static func key(of entry: Entry) -> String {
        entry.caseSensitive ? entry.pattern : entry.pattern.lowercasedIfNeeded()
    }

    /// The matches for a filename (see the type's rules), best first.
    func matches(_ fileName: String) -> [Entry] {
        Self.matches(fileName, literal: { literal[$0] ?? [] }, suffix: { suffix[$0] ?? [] }, complex: complex)
    }

    /// The matches for a filename, best first, over an index given by its parts (this index's
    /// dictionaries, or a snapshot's tables read in place).
    /// - Parameters:
    ///   - literal: the entries of a literal key.
    ///   - suffix: the entries of a suffix key.
    ///   - complex: the other patterns, in insertion order.
    static func matches(
        _ fileName: String, literal: (String) -> [Entry], suffix: (String) -> [Entry],
        complex: [(entry: Entry, characters: [Character])]
    ) -> [Entry] {
        guard !fileName.isEmpty else { return [] }
        let lower = fileName.lowercasedIfNeeded()
        var found: [Entry] = literal(lower).filter { !$0.caseSensitive }
        if found.isEmpty { found = literal(fileName).filter(\.caseSensitive) }
        if found.isEmpty {
            found = longestSuffixMatches(lower, caseSensitive: false, suffix: suffix)
            if typeCount(found) < 2 { found += longestSuffixMatches(fileName, caseSensitive: true, suffix: suffix) }
            if typeCount(found) < 2 {
                let original = Array(fileName)
                let lowered = Array(lower)
                for (entry, characters) in complex
                where GlobPattern.matches(entry.caseSensitive ? original : lowered, characters) {
                    found.append(entry)
                }
            }
        }
        // One entry per payload, with its highest weight.
        var best: [Payload: Entry] = [:]
        var order: [Payload] = []
        for entry in found {
            if let known = best[entry.payload] {
                if entry.weight > known.weight { best[entry.payload] = entry }
            } else {
                best[entry.payload] = entry
                order.append(entry.payload)
            }
        }
        return order.compactMap { best[$0] }.enumerated().sorted { a, b in
            if a.element.weight != b.element.weight { return a.element.weight > b.element.weight }
            if a.element.caseSensitive != b.element.caseSensitive { return a.element.caseSensitive }
            if a.element.priority != b.element.priority { return a.element.priority < b.element.priority }
            return a.offset < b.offset
        }.map(\.element)
    }

    private static func typeCount(_ entries: [Entry]) -> Int {
        Set(entries.map(\.payload)).count
    }

    /// Entries whose pattern is `*<suffix>` for the longest suffix of the name (with a non-empty
    /// stem) that has entries of the given case sensitivity.
    private static func longestSuffixMatches(
        _ name: String, caseSensitive: Bool, suffix: (String) -> [Entry]
    ) -> [Entry] {
        var index = name.index(after: name.startIndex)
        while index < name.endIndex {
            let matching = suffix(String(name[index...])).filter { $0.caseSensitive == caseSensitive }
            if !matching.isEmpty { return matching }
            index = name.index(after: index)
        }
        return []
    }

    /// Entries whose pattern is `*.<ext>` for the given extension (any case).
    func entries(forExtension ext: String) -> [Entry] {
        Self.entries(forExtension: ext) { suffix[$0] ?? [] }
    }

    /// Entries whose pattern is `*.<ext>`, over an index given by its suffix lookup.
    static func entries(forExtension ext: String, suffix: (String) -> [Entry]) -> [Entry] {
        suffix("." + ext.lowercased()).filter { !$0.caseSensitive } + suffix("." + ext).filter(\.caseSensitive)
    }
}
