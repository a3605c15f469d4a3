public import Foundation

/// The freedesktop shared-mime-info database: MIME types with their globs, magic rules,
/// aliases and `sub-class-of` parents, read from the package XML files or from the compiled
/// `mime.cache` (``parse(cache:source:)``).
///
/// Package directories are given highest precedence first, as `XDG_DATA_HOME` then
/// `XDG_DATA_DIRS` list them; later information overrides earlier, so they are read lowest
/// precedence first, and within a directory `Override.xml` is read last. `<glob-deleteall/>`
/// and `<magic-deleteall/>` discard what lower-precedence files said. Unreadable files and
/// unusable values become ``warnings``; loading never fails.
///
/// Magic rules are tried in the order `update-mime-database` writes them into `mime.cache`, the
/// order GLib's xdgmime tries them in: higher priority first, then by media type and subtype.
public struct SharedMimeInfo: Sendable {
    /// The largest package file read, in bytes.
    public static let maximumFileSize = 32 * 1024 * 1024

    /// Every type, by canonical lower-cased MIME type.
    public var definitions: [String: MimeTypeDefinition] { contents.definitions }
    /// Alias → canonical MIME type.
    public var aliases: [String: String] { contents.aliases }
    /// Problems found while reading, each naming its file (and line where known).
    public var warnings: [String] { contents.warnings }
    /// The package files read, in reading order.
    public var sources: [String] { contents.sources }
    /// Every type's canonical name, sorted: the order types are indexed and joined in.
    var sortedTypes: [String] { contents.sortedTypes }

    /// The database when it was read or built in this process.
    private var tables = MimeTables()
    /// The database when it is read in place from a registry snapshot (then ``tables`` is empty):
    /// lookups read only what they need; the whole-database properties above decode it once.
    private var snapshot: RegistrySnapshot?

    /// The whole database in memory (decoded once when it is read from a snapshot).
    var contents: MimeTables { snapshot?.mimeTables ?? tables }

    /// An empty database.
    public init() {}

    /// The database stored in a registry snapshot.
    init(snapshot: RegistrySnapshot) {
        self.snapshot = snapshot
    }

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
                    database.tables.warnings.append("\(path): larger than \(maximumFileSize) bytes; ignored")
                    continue
                }
                guard let data = FileManager.default.contents(atPath: path) else {
                    database.tables.warnings.append("\(path): cannot be read; ignored")
                    continue
                }
                files.append((path, [UInt8](data)))
            }
        }
        for file in files { database.merge(xml: file.bytes, source: file.path) }
        database.finish()
        return database
    }

    /// Reads a compiled `mime.cache` given in memory (see ``MimeCacheReader``). The cache holds no
    /// comments, so definitions read from it have none.
    /// - Parameters:
    ///   - bytes: the file's content.
    ///   - source: its path, for messages.
    /// - Throws: ``MimeCacheError`` when the bytes are not a cache of version 1.1 or 1.2, or are damaged.
    public static func parse(cache bytes: [UInt8], source: String) throws(MimeCacheError) -> SharedMimeInfo {
        var reader = MimeCacheReader(bytes: bytes, source: source)
        var database = SharedMimeInfo()
        database.tables.definitions = try reader.definitions()
        database.tables.sources = [source]
        database.finish()
        return database
    }

    /// The databases of several directories as one, given lowest precedence first: a type's globs,
    /// magic, parents and aliases add up; its comment is the last one given.
    public static func combining(_ databases: [SharedMimeInfo]) -> SharedMimeInfo {
        guard databases.count != 1 else { return databases[0] }
        var combined = SharedMimeInfo()
        for database in databases {
            combined.tables.sources += database.sources
            combined.tables.warnings += database.warnings
            for type in database.definitions.keys.sorted() {
                guard let definition = database.definitions[type] else { continue }
                combined.merge(SharedMimeInfoParser.Element(definition: definition))
            }
        }
        combined.finish()
        return combined
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

    /// The untranslated `<comment>` of a type file `update-mime-database` writes beside the cache
    /// (`…/mime/image/png.xml`), which `mime.cache` lacks; `nil` when there is none or the bytes are
    /// not such a file.
    public static func comment(inTypeFile bytes: [UInt8]) -> String? {
        var reader = XMLReader(bytes: bytes)
        var depth = 0
        var inComment = false
        var text = ""
        do {
            while let event = try reader.next() {
                switch event {
                case .start(let name, let attributes):
                    depth += 1
                    if depth == 1 && name != "mime-type" { return nil }
                    inComment = depth == 2 && name == "comment" && attributes["xml:lang"] == nil
                case .end:
                    if inComment { return text.trimmingTypeWhitespace() }
                    depth -= 1
                case .text(let range, let isCDATA):
                    if inComment { text += reader.text(range, isCDATA: isCDATA) }
                }
            }
        } catch {
            return nil
        }
        return nil
    }

    /// Records a problem found while loading (for example a damaged `mime.cache`).
    public mutating func addWarning(_ warning: String) {
        if let snapshot {
            tables = snapshot.mimeTables
            self.snapshot = nil
        }
        tables.warnings.append(warning)
    }

    /// The canonical name of a MIME type (aliases resolved, lower-cased, parameters dropped);
    /// `nil` when the text is not a MIME type.
    public func canonicalName(_ mimeType: String) -> String? {
        guard let normalized = MIMEType.normalize(mimeType) else { return nil }
        return canonicalType(ofAlias: normalized) ?? normalized
    }

    /// The definition of a MIME type or one of its aliases.
    public func definition(_ mimeType: String) -> MimeTypeDefinition? {
        guard let canonical = canonicalName(mimeType) else { return nil }
        if let snapshot { return snapshot.mimeDefinition(canonical) }
        return tables.definitions[canonical]
    }

    /// The canonical type an alias names, or `nil` when it is not an alias.
    private func canonicalType(ofAlias alias: String) -> String? {
        if let snapshot { return snapshot.canonicalMIMEType(ofAlias: alias) }
        return tables.aliases[alias]
    }

    /// Whether a type (given by its canonical name) has magic rules.
    func hasMagic(_ canonical: String) -> Bool {
        if let snapshot { return snapshot.mimeHasMagic(canonical) }
        return !(tables.definitions[canonical]?.magic.isEmpty ?? true)
    }

    /// Direct parents: declared `sub-class-of` (aliases resolved), or the implicit
    /// `text/plain` for `text/*` and `application/octet-stream` for every non-`inode/*` type.
    public func parents(of mimeType: String) -> [String] {
        guard let canonical = canonicalName(mimeType) else { return [] }
        let declared = snapshot.map { $0.mimeParents(canonical) } ?? tables.definitions[canonical]?.parents ?? []
        var result = declared.map { canonicalType(ofAlias: $0) ?? $0 }.filter { $0 != canonical }
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
    /// (It indexes the globs on each call: the registry keeps its own index.)
    public func mimeTypes(forFileName fileName: String) -> [(mimeType: String, glob: MimeGlob)] {
        var globs = GlobIndex<String>()
        for (type, glob) in allGlobs {
            globs.insert(
                pattern: glob.pattern, weight: glob.weight, caseSensitive: glob.caseSensitive, payload: type,
                priority: 0)
        }
        var seen: Set<String> = []
        return globs.matches(fileName).compactMap { entry in
            guard seen.insert(entry.payload).inserted else { return nil }
            return (
                entry.payload,
                MimeGlob(pattern: entry.pattern, weight: entry.weight, caseSensitive: entry.caseSensitive)
            )
        }
    }

    /// Every MIME type whose magic matches the first bytes of a file, with the priority of its first
    /// matching rule, in the order the rules are tried (priority, then media type and subtype): the
    /// first is what the spec's magic step answers.
    /// - Parameter bytes: the start of the file (a few KiB is plenty).
    public func sniff(_ bytes: [UInt8]) -> [(mimeType: String, priority: Int)] {
        guard !bytes.isEmpty else { return [] }
        if let snapshot { return snapshot.sniff(bytes, firstOnly: false) }
        var found: [(mimeType: String, priority: Int)] = []
        var seen: Set<String> = []
        for (mimeType, rule) in tables.magic where !seen.contains(mimeType) && rule.matches(bytes) {
            seen.insert(mimeType)
            found.append((mimeType, rule.priority))
        }
        return found
    }

    /// The first magic match, as the spec's magic step answers; `nil` when no rule matches.
    public func sniffFirst(_ bytes: [UInt8]) -> (mimeType: String, priority: Int)? {
        guard !bytes.isEmpty else { return nil }
        if let snapshot { return snapshot.sniff(bytes, firstOnly: true).first }
        for (mimeType, rule) in tables.magic where rule.matches(bytes) { return (mimeType, rule.priority) }
        return nil
    }

    /// Whether data counts as text when no magic rule matches it (spec §2.12), as GLib decides:
    /// text when its first 128 bytes hold no control character other than tab, line feed and
    /// carriage return, or when none of its bytes is a control character other than tab, line
    /// feed, form feed, carriage return and backspace. Bytes above 0x7F count as text (they may be
    /// UTF-8). Empty data is text (a new, empty file is a text file).
    public static func looksLikeText(_ bytes: [UInt8]) -> Bool {
        if bytes.prefix(128).allSatisfy({ $0 >= 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) { return true }
        return bytes.allSatisfy { byte in
            switch byte {
            case 0x08, 0x09, 0x0A, 0x0C, 0x0D: true
            case 0x00..<0x20, 0x7F: false
            default: true
            }
        }
    }

    /// Every glob of every type, for the registry's own index.
    var allGlobs: [(mimeType: String, glob: MimeGlob)] {
        let contents = self.contents
        return contents.sortedTypes.flatMap { type in (contents.definitions[type]?.globs ?? []).map { (type, $0) } }
    }

    // MARK: - Building

    private mutating func merge(xml bytes: [UInt8], source: String) {
        var parser = SharedMimeInfoParser(source: source)
        parser.parse(bytes)
        tables.sources.append(source)
        tables.warnings += parser.warnings
        for element in parser.elements { merge(element) }
    }

    private mutating func merge(_ element: SharedMimeInfoParser.Element) {
        let type = element.definition.mimeType
        guard var existing = tables.definitions[type] else {
            tables.definitions[type] = element.definition
            return
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
        tables.definitions[type] = existing
    }

    private mutating func finish() {
        tables.aliases = [:]
        tables.sortedTypes = tables.definitions.keys.sorted()
        for type in tables.sortedTypes {
            guard let definition = tables.definitions[type] else { continue }
            for alias in definition.aliases {
                if tables.definitions[alias] != nil {
                    tables.warnings.append("\(type): alias '\(alias)' is itself a defined type; the alias is ignored")
                } else if let other = tables.aliases[alias], other != type {
                    tables.warnings.append("\(type): alias '\(alias)' already names '\(other)'; the alias is ignored")
                } else {
                    tables.aliases[alias] = type
                }
            }
        }
        tables.magic = []
        for type in tables.sortedTypes {
            guard let definition = tables.definitions[type] else { continue }
            for rule in definition.magic { tables.magic.append((type, rule)) }
        }
        // update-mime-database's order: priority, then media type, then subtype (stable otherwise).
        let keys = tables.magic.enumerated().map { index, entry in
            let type = MIMEType.split(entry.mimeType)
            return (priority: entry.rule.priority, media: type.media, subtype: type.subtype, index: index)
        }
        tables.magic = keys.sorted { a, b in
            if a.priority != b.priority { return a.priority > b.priority }
            if a.media != b.media { return a.media < b.media }
            if a.subtype != b.subtype { return a.subtype < b.subtype }
            return a.index < b.index
        }.map { tables.magic[$0.index] }
    }
}
