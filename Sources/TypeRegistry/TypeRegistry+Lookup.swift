extension TypeRegistry {
    /// Everything known about a type: a declared type, or a dynamic type decoded from its identifier.
    /// - Returns: `nil` for an identifier nobody declared that is not a decodable `dyn.` identifier.
    public func record(for identifier: TypeIdentifier) -> TypeRecord? {
        if let record = store.record(identifier) { return record }
        guard let dynamic = DynamicType(identifier: identifier) else { return nil }
        return TypeRecord(
            identifier: identifier, conformsTo: [dynamic.conformsTo],
            filenameExtensions: dynamic.tagClass == .filenameExtension ? [dynamic.tag] : [],
            mimeTypes: dynamic.tagClass == .mimeType ? [dynamic.tag] : [], description: nil, origin: .dynamic,
            isPackage: false)
    }

    /// Whether the registry declares the type (dynamic types are not declared).
    public func isDeclared(_ identifier: TypeIdentifier) -> Bool {
        store.isDeclared(identifier)
    }

    /// Every declared type, sorted by identifier.
    public var allTypes: [TypeRecord] {
        store.tables.records.values.sorted { $0.identifier < $1.identifier }
    }

    /// The types an application declares (exported or imported), whether or not its declaration is the one in use.
    public func types(declaredBy applicationID: String) -> [TypeRecord] {
        let id = applicationID.lowercased()
        let tables = store.tables
        return tables.declarers.filter { _, list in
            list.contains { if case .application(let app, _) = $0.origin { app.lowercased() == id } else { false } }
        }.keys.compactMap { tables.records[$0] }.sorted { $0.identifier < $1.identifier }
    }

    // MARK: - Conformance

    /// Every type `identifier` conforms to, excluding itself: parents depth-first in declared order.
    public func supertypes(of identifier: TypeIdentifier) -> [TypeIdentifier] {
        if let list = store.ancestors(identifier) { return list }
        guard let dynamic = DynamicType(identifier: identifier) else { return [] }
        return [dynamic.conformsTo] + (store.ancestors(dynamic.conformsTo) ?? [])
    }

    /// Whether `identifier` is `ancestor` or conforms to it, transitively.
    public func conforms(_ identifier: TypeIdentifier, to ancestor: TypeIdentifier) -> Bool {
        identifier == ancestor || supertypes(of: identifier).contains(ancestor)
    }

    /// The fewest conformance steps from `identifier` up to `ancestor` (0 when equal), or `nil`.
    public func conformanceDistance(from identifier: TypeIdentifier, to ancestor: TypeIdentifier) -> Int? {
        conformancePath(from: identifier, to: ancestor).map { $0.count - 1 }
    }

    /// A shortest chain of parents from `identifier` to `ancestor`, both included, or `nil`.
    public func conformancePath(from identifier: TypeIdentifier, to ancestor: TypeIdentifier) -> [TypeIdentifier]? {
        var previous: [TypeIdentifier: TypeIdentifier] = [:]
        let found = breadthFirst(from: identifier) { type, child in
            if let child { previous[type] = child }
            return type == ancestor ? type : nil
        }
        guard found != nil else { return nil }
        var path = [ancestor]
        while let back = previous[path[path.count - 1]] { path.append(back) }
        return path.reversed()
    }

    /// Visits a type, then its supertypes nearest first (breadth-first), each once, with the type
    /// it was reached from; the first non-`nil` answer of `visit` ends the walk and is returned.
    func breadthFirst<Answer>(
        from identifier: TypeIdentifier, _ visit: (TypeIdentifier, TypeIdentifier?) -> Answer?
    ) -> Answer? {
        if let answer = visit(identifier, nil) { return answer }
        var queue = [identifier]
        var seen: Set<TypeIdentifier> = [identifier]
        var index = 0
        while index < queue.count {
            let current = queue[index]
            index += 1
            for parent in directParents(of: current) where seen.insert(parent).inserted {
                if let answer = visit(parent, current) { return answer }
                queue.append(parent)
            }
        }
        return nil
    }

    /// Every chain of parents from the type to a root (a type with no parents), at most `limit`.
    public func conformanceChains(of identifier: TypeIdentifier, limit: Int = 16) -> [[TypeIdentifier]] {
        var chains: [[TypeIdentifier]] = []
        func walk(_ path: [TypeIdentifier]) {
            guard chains.count < limit, let last = path.last else { return }
            let parents = directParents(of: last).filter { !path.contains($0) }
            if parents.isEmpty {
                chains.append(path)
                return
            }
            for parent in parents { walk(path + [parent]) }
        }
        walk([identifier])
        return chains
    }

    /// The declared types that conform to `ancestor` (excluding it), sorted by identifier.
    public func types(conformingTo ancestor: TypeIdentifier) -> [TypeIdentifier] {
        store.tables.ancestors.filter { $0.value.contains(ancestor) }.map(\.key).sorted()
    }

    func directParents(of identifier: TypeIdentifier) -> [TypeIdentifier] {
        if let record = store.record(identifier) { return record.conformsTo }
        return DynamicType(identifier: identifier).map { [$0.conformsTo] } ?? []
    }

    // MARK: - Tags

    /// The declared types tagged with a filename extension, best first (higher glob weight, then
    /// built-in, exported, shared-mime-info, imported). Compound extensions such as `tar.gz` work.
    /// - Parameter filenameExtension: with or without the leading dot, any case.
    public func types(forFilenameExtension filenameExtension: String) -> [TypeRecord] {
        var ext = filenameExtension.trimmingTypeWhitespace()
        while ext.hasPrefix(".") { ext.removeFirst() }
        guard !ext.isEmpty else { return [] }
        let entries = store.entries(forExtension: ext).sorted { a, b in
            if a.weight != b.weight { return a.weight > b.weight }
            if a.priority != b.priority { return a.priority < b.priority }
            return a.order < b.order
        }
        var seen: Set<TypeIdentifier> = []
        return entries.compactMap { seen.insert($0.payload.type).inserted ? store.record($0.payload.type) : nil }
    }

    /// The preferred type for a filename extension, or a dynamic type when nobody declares it.
    /// - Parameters:
    ///   - filenameExtension: with or without the leading dot, any case.
    ///   - conformingTo: only consider types conforming to this (pass `.directory` for a folder);
    ///     the dynamic fallback conforms to `public.directory` if it is given, else `public.data`.
    public func preferredType(forFilenameExtension filenameExtension: String, conformingTo: TypeIdentifier? = nil)
        -> TypeIdentifier
    {
        let candidates = types(forFilenameExtension: filenameExtension)
        if let match = candidates.first(where: { record in
            conformingTo.map { conforms(record.identifier, to: $0) } ?? true
        }) {
            return match.identifier
        }
        let parent: TypeIdentifier = conformingTo.map { conforms($0, to: .directory) ? .directory : .data } ?? .data
        return DynamicType(tagClass: .filenameExtension, tag: filenameExtension, conformsTo: parent).identifier
    }

    /// The declared types tagged with a MIME type or one of its aliases, best first.
    /// - Parameter mimeType: any case; parameters (`; charset=…`) are ignored.
    public func types(forMIMEType mimeType: String) -> [TypeRecord] {
        guard let normalized = MIMEType.normalize(mimeType) else { return [] }
        var identifiers = store.types(taggedWith: normalized) ?? []
        if let canonical = sharedMimeInfo.canonicalName(normalized), canonical != normalized {
            identifiers += store.types(taggedWith: canonical) ?? []
        }
        var seen: Set<TypeIdentifier> = []
        return identifiers.compactMap { seen.insert($0).inserted ? store.record($0) : nil }
    }

    /// The preferred type for a MIME type, or a dynamic type when nobody declares it.
    /// - Parameters:
    ///   - mimeType: any case; parameters are ignored.
    ///   - conformingTo: only consider types conforming to this.
    public func preferredType(forMIMEType mimeType: String, conformingTo: TypeIdentifier? = nil) -> TypeIdentifier {
        if let match = types(forMIMEType: mimeType).first(where: { record in
            conformingTo.map { conforms(record.identifier, to: $0) } ?? true
        }) {
            return match.identifier
        }
        let tag = MIMEType.normalize(mimeType) ?? mimeType.trimmingTypeWhitespace().lowercased()
        let parent: TypeIdentifier = conformingTo.map { conforms($0, to: .directory) ? .directory : .data } ?? .data
        return DynamicType(tagClass: .mimeType, tag: tag, conformsTo: parent).identifier
    }

    /// The types a file name suggests, best first, following shared-mime-info's glob rules:
    /// literal names first, then the highest weight, then the longest pattern (`*.tar.gz`
    /// before `*.gz`), then built-in, exported, shared-mime-info and imported declarations.
    /// Empty when nothing matches (see ``preferredType(forFileName:)`` for a dynamic fallback).
    public func types(forFileName fileName: String) -> [TypeIdentifier] {
        var result: [TypeIdentifier] = []
        for match in nameMatches(fileName) where !result.contains(match.type) { result.append(match.type) }
        return result
    }

    /// The best type for a file name alone, or a dynamic type for its last extension, or
    /// `public.data` when it has no extension. No content is looked at; see ``resolve(_:)``.
    public func preferredType(forFileName fileName: String) -> TypeIdentifier {
        if let first = types(forFileName: fileName).first { return first }
        if let ext = Self.lastExtension(of: fileName) {
            return DynamicType(tagClass: .filenameExtension, tag: ext).identifier
        }
        return .data
    }

    /// A usable MIME type for any type: its own first MIME type (canonical), else that of its
    /// nearest supertype that has one (`text/plain` for a script, `application/octet-stream` for
    /// data); `inode/directory` for folders and packages; `application/octet-stream` otherwise.
    public func preferredMIMEType(for identifier: TypeIdentifier) -> String {
        breadthFirst(from: identifier) { current, _ in
            if current == .directory || current == .package || current == .bundle { return "inode/directory" }
            guard let mime = record(for: current)?.mimeTypes.first else { return nil }
            return sharedMimeInfo.canonicalName(mime) ?? MIMEType.normalize(mime) ?? "application/octet-stream"
        } ?? "application/octet-stream"
    }

    /// The type a MIME type of the shared-mime-info database maps to (joined or `mime.…`).
    public func type(forSharedMIMEType mimeType: String) -> TypeIdentifier? {
        guard let canonical = sharedMimeInfo.canonicalName(mimeType) else { return nil }
        return store.type(forSharedMIMEType: canonical)
            ?? store.type(forSharedMIMEType: MIMEType.normalize(mimeType) ?? canonical)
    }

    // MARK: - Names

    /// The last path component of a name; a trailing slash is ignored.
    static func lastPathComponent(_ path: String) -> String {
        var text = Substring(path)
        while text.hasSuffix("/") { text = text.dropLast() }
        if let slash = text.lastIndex(of: "/") { text = text[text.index(after: slash)...] }
        return String(text)
    }

    /// The last extension of a file name, lower-cased; `nil` for `Makefile`, `.bashrc` and `x.`.
    static func lastExtension(of fileName: String) -> String? {
        let name = lastPathComponent(fileName)
        let stem = name.drop { $0 == "." }
        guard let dot = stem.lastIndex(of: ".") else { return nil }
        let ext = stem[stem.index(after: dot)...]
        return ext.isEmpty ? nil : ext.lowercased()
    }
}
