/// Filename patterns indexed for fast lookup, with shared-mime-info's selection rules.
///
/// Literal names (`Makefile`) are matched before any pattern. Otherwise every matching
/// pattern is collected, only those with the highest weight are kept, and of those only the
/// longest patterns (so `*.tar.gz` beats `*.gz`). Case-insensitive patterns compare lower-cased.
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

    private var literal: [String: [Entry]] = [:]
    private var suffix: [String: [Entry]] = [:]
    private var complex: [(entry: Entry, characters: [Character])] = []
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
        let key = caseSensitive ? pattern : pattern.lowercased()
        if !GlobPattern.hasWildcard(pattern) {
            literal[key, default: []].append(entry)
        } else if let tail = GlobPattern.simpleSuffix(key) {
            suffix[tail, default: []].append(entry)
        } else {
            complex.append((entry, Array(key)))
        }
    }

    /// The best matches for a filename (see the type's rules), best first.
    func matches(_ fileName: String) -> [Entry] {
        guard !fileName.isEmpty else { return [] }
        let lower = fileName.lowercased()
        var found: [Entry] = []
        for entry in literal[fileName] ?? [] where entry.caseSensitive { found.append(entry) }
        for entry in literal[lower] ?? [] where !entry.caseSensitive { found.append(entry) }
        if found.isEmpty {
            found = suffixMatches(fileName, caseSensitive: true) + suffixMatches(lower, caseSensitive: false)
            let original = Array(fileName)
            let lowered = Array(lower)
            for (entry, characters) in complex
            where GlobPattern.matches(entry.caseSensitive ? original : lowered, characters) {
                found.append(entry)
            }
        }
        guard let weight = found.map(\.weight).max() else { return [] }
        found = found.filter { $0.weight == weight }
        let length = found.map(\.length).max() ?? 0
        found = found.filter { $0.length == length }
        return found.sorted { a, b in
            if a.caseSensitive != b.caseSensitive { return a.caseSensitive }
            if a.priority != b.priority { return a.priority < b.priority }
            return a.order < b.order
        }
    }

    /// Entries whose pattern is exactly `*<suffix>` for a suffix of the name with a non-empty stem.
    private func suffixMatches(_ name: String, caseSensitive: Bool) -> [Entry] {
        var result: [Entry] = []
        var index = name.index(after: name.startIndex)
        while index < name.endIndex {
            if let entries = suffix[String(name[index...])] {
                result += entries.filter { $0.caseSensitive == caseSensitive }
            }
            index = name.index(after: index)
        }
        return result
    }

    /// Entries whose pattern is `*.<ext>` for the given extension (any case).
    func entries(forExtension ext: String) -> [Entry] {
        let key = "." + ext.lowercased()
        return (suffix[key] ?? []).filter { !$0.caseSensitive } + (suffix["." + ext] ?? []).filter(\.caseSensitive)
    }
}
