public import Foundation

/// The freedesktop shared-mime-info database: MIME types with their globs, magic rules,
/// aliases and `sub-class-of` parents, read from the package XML files.
///
/// Package directories are given highest precedence first, as `XDG_DATA_HOME` then
/// `XDG_DATA_DIRS` list them; later information overrides earlier, so they are read lowest
/// precedence first, and within a directory `Override.xml` is read last. `<glob-deleteall/>`
/// and `<magic-deleteall/>` discard what lower-precedence files said. Unreadable files and
/// unusable values become ``warnings``; loading never fails.
public struct SharedMimeInfo: Sendable {
    /// The largest package file read, in bytes.
    public static let maximumFileSize = 32 * 1024 * 1024

    /// Every type, by canonical lower-cased MIME type.
    public private(set) var definitions: [String: MimeTypeDefinition] = [:]
    /// Alias → canonical MIME type.
    public private(set) var aliases: [String: String] = [:]
    /// Problems found while reading, each naming its file (and line where known).
    public private(set) var warnings: [String] = []
    /// The package files read, in reading order.
    public private(set) var sources: [String] = []
    private var globs = GlobIndex<String>()
    private var magicTypes: [(mimeType: String, rules: [MagicRule])] = []

    /// An empty database.
    public init() {}

    /// Reads every `*.xml` file of the given package directories.
    /// - Parameter packageDirectories: `…/mime/packages` directories, highest precedence first;
    ///   missing directories are skipped silently.
    public static func load(packageDirectories: [String]) -> SharedMimeInfo {
        var database = SharedMimeInfo()
        var files: [(path: String, bytes: [UInt8])] = []
        for directory in packageDirectories.reversed() {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { continue }
            let xml = names.filter { $0.hasSuffix(".xml") }.sorted { a, b in
                if (a == "Override.xml") != (b == "Override.xml") { return b == "Override.xml" }
                return a < b
            }
            for name in xml {
                let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
                let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int ?? 0
                if size > maximumFileSize {
                    database.warnings.append("\(path): larger than \(maximumFileSize) bytes; ignored")
                    continue
                }
                guard let data = FileManager.default.contents(atPath: path) else {
                    database.warnings.append("\(path): cannot be read; ignored")
                    continue
                }
                files.append((path, [UInt8](data)))
            }
        }
        for file in files { database.merge(xml: file.bytes, source: file.path) }
        database.finish()
        return database
    }

    /// Parses package XML documents given in memory, lowest precedence first (for tests and tools).
    /// - Parameter documents: `(source name, XML bytes)` pairs.
    public static func parse(_ documents: [(source: String, xml: Data)]) -> SharedMimeInfo {
        var database = SharedMimeInfo()
        for document in documents { database.merge(xml: [UInt8](document.xml), source: document.source) }
        database.finish()
        return database
    }

    /// The package directories of the XDG base directories, highest precedence first:
    /// `$XDG_DATA_HOME/mime/packages` (default `~/.local/share`), then each of
    /// `$XDG_DATA_DIRS` (default `/usr/local/share:/usr/share`).
    /// - Parameter environment: the process environment (`HOME`, `XDG_DATA_HOME`, `XDG_DATA_DIRS`).
    public static func defaultPackageDirectories(environment: [String: String]) -> [String] {
        var roots: [String] = []
        if let home = environment["XDG_DATA_HOME"], home.hasPrefix("/") {
            roots.append(home)
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            roots.append(home + "/.local/share")
        }
        let dataDirs = environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share"
        for directory in dataDirs.split(separator: ":") where directory.hasPrefix("/") {
            roots.append(String(directory))
        }
        var seen: Set<String> = []
        return roots.map { ImporterPaths.normalize($0) + "/mime/packages" }.filter { seen.insert($0).inserted }
    }

    // MARK: - Queries

    /// The canonical name of a MIME type (aliases resolved, lower-cased, parameters dropped);
    /// `nil` when the text is not a MIME type.
    public func canonicalName(_ mimeType: String) -> String? {
        guard let normalized = MIMEType.normalize(mimeType) else { return nil }
        return aliases[normalized] ?? normalized
    }

    /// The definition of a MIME type or one of its aliases.
    public func definition(_ mimeType: String) -> MimeTypeDefinition? {
        canonicalName(mimeType).flatMap { definitions[$0] }
    }

    /// Direct parents: declared `sub-class-of` (aliases resolved), or the implicit
    /// `text/plain` for `text/*` and `application/octet-stream` for every non-`inode/*` type.
    public func parents(of mimeType: String) -> [String] {
        guard let canonical = canonicalName(mimeType) else { return [] }
        var result = (definitions[canonical]?.parents ?? []).map { aliases[$0] ?? $0 }.filter { $0 != canonical }
        if result.isEmpty {
            if canonical.hasPrefix("text/") && canonical != "text/plain" {
                result = ["text/plain"]
            } else if !canonical.hasPrefix("inode/") && canonical != "application/octet-stream" {
                result = ["application/octet-stream"]
            }
        }
        return result
    }

    /// Whether `mimeType` is `ancestor` or a (transitive) subclass of it.
    public func isSubclass(_ mimeType: String, of ancestor: String) -> Bool {
        guard let start = canonicalName(mimeType), let target = canonicalName(ancestor) else { return false }
        var queue = [start]
        var seen: Set<String> = [start]
        while !queue.isEmpty {
            let current = queue.removeFirst()
            if current == target { return true }
            if current.hasPrefix("text/") && target == "text/plain" { return true }
            for parent in parents(of: current) where seen.insert(parent).inserted { queue.append(parent) }
        }
        return false
    }

    /// The MIME types whose globs best match a file name (see ``GlobIndex``), best first.
    public func mimeTypes(forFileName fileName: String) -> [(mimeType: String, glob: MimeGlob)] {
        var seen: Set<String> = []
        return globs.matches(fileName).compactMap { entry in
            guard seen.insert(entry.payload).inserted else { return nil }
            return (
                entry.payload,
                MimeGlob(pattern: entry.pattern, weight: entry.weight, caseSensitive: entry.caseSensitive)
            )
        }
    }

    /// Every MIME type whose magic matches the first bytes of a file, with the best rule's
    /// priority; highest priority first, a subclass before its parent at equal priority.
    /// - Parameter bytes: the start of the file (a few KiB is plenty).
    public func sniff(_ bytes: [UInt8]) -> [(mimeType: String, priority: Int)] {
        guard !bytes.isEmpty else { return [] }
        var found: [(mimeType: String, priority: Int)] = []
        for (mimeType, rules) in magicTypes {
            var best: Int?
            for rule in rules where rule.priority > (best ?? -1) && rule.matches(bytes) { best = rule.priority }
            if let best { found.append((mimeType, best)) }
        }
        return found.sorted { a, b in
            if a.priority != b.priority { return a.priority > b.priority }
            let aSub = isSubclass(a.mimeType, of: b.mimeType)
            let bSub = isSubclass(b.mimeType, of: a.mimeType)
            if aSub != bSub { return aSub }
            return a.mimeType < b.mimeType
        }
    }

    /// Whether bytes look like text: no ASCII control characters other than tab, line feed,
    /// form feed, carriage return and escape in the first 128 bytes (high-bit bytes count as
    /// text, since they may be UTF-8). Empty input is not text.
    public static func looksLikeText(_ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty else { return false }
        for byte in bytes.prefix(128) {
            switch byte {
            case 0x09, 0x0A, 0x0C, 0x0D, 0x1B: continue
            case 0x00..<0x20, 0x7F: return false
            default: continue
            }
        }
        return true
    }

    /// Every glob of every type, for the registry's own index.
    var allGlobs: [(mimeType: String, glob: MimeGlob)] {
        globs.entries.map {
            ($0.payload, MimeGlob(pattern: $0.pattern, weight: $0.weight, caseSensitive: $0.caseSensitive))
        }
    }

    // MARK: - Building

    private mutating func merge(xml bytes: [UInt8], source: String) {
        var parser = SharedMimeInfoParser(source: source)
        parser.parse(bytes)
        sources.append(source)
        warnings += parser.warnings
        for element in parser.elements {
            let type = element.definition.mimeType
            guard var existing = definitions[type] else {
                definitions[type] = element.definition
                continue
            }
            if element.deletesGlobs { existing.globs.removeAll() }
            for glob in element.definition.globs where !existing.globs.contains(glob) { existing.globs.append(glob) }
            if element.deletesMagic { existing.magic.removeAll() }
            existing.magic += element.definition.magic
            if let comment = element.definition.comment { existing.comment = comment }
            if let acronym = element.definition.acronym { existing.acronym = acronym }
            if let expanded = element.definition.expandedAcronym { existing.expandedAcronym = expanded }
            if let icon = element.definition.genericIcon { existing.genericIcon = icon }
            for alias in element.definition.aliases where !existing.aliases.contains(alias) {
                existing.aliases.append(alias)
            }
            for parent in element.definition.parents where !existing.parents.contains(parent) {
                existing.parents.append(parent)
            }
            existing.sources += element.definition.sources
            definitions[type] = existing
        }
    }

    private mutating func finish() {
        aliases = [:]
        for type in definitions.keys.sorted() {
            guard let definition = definitions[type] else { continue }
            for alias in definition.aliases {
                if definitions[alias] != nil {
                    warnings.append("\(type): alias '\(alias)' is itself a defined type; the alias is ignored")
                } else if let other = aliases[alias], other != type {
                    warnings.append("\(type): alias '\(alias)' already names '\(other)'; the alias is ignored")
                } else {
                    aliases[alias] = type
                }
            }
        }
        globs = GlobIndex<String>()
        magicTypes = []
        for type in definitions.keys.sorted() {
            guard let definition = definitions[type] else { continue }
            for glob in definition.globs {
                globs.insert(
                    pattern: glob.pattern, weight: glob.weight, caseSensitive: glob.caseSensitive, payload: type,
                    priority: 0)
            }
            if !definition.magic.isEmpty { magicTypes.append((type, definition.magic)) }
        }
    }
}
