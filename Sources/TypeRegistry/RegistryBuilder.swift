/// Merges built-in types, shared-mime-info and application manifests into a ``TypeRegistry``'s tables.
struct RegistryBuilder {
    /// A type being built (a class: the phases update it in place, no copy per access).
    private final class WorkingType {
        var identifier: TypeIdentifier
        var parents: [TypeIdentifier]
        var declaredExtensions: [String]
        var extensions: [String]
        var mimeTypes: [String]
        var description: String?
        var origin: TypeOrigin
        /// 0 built-in, 1 exported by an app, 2 shared-mime-info, 3 imported by an app.
        var priority: Int
        var order: Int

        init(
            identifier: TypeIdentifier, parents: [TypeIdentifier], declaredExtensions: [String], extensions: [String],
            mimeTypes: [String], description: String?, origin: TypeOrigin, priority: Int, order: Int
        ) {
            self.identifier = identifier
            self.parents = parents
            self.declaredExtensions = declaredExtensions
            self.extensions = extensions
            self.mimeTypes = mimeTypes
            self.description = description
            self.origin = origin
            self.priority = priority
            self.order = order
        }
    }

    private let builtins: [TypeDeclaration]
    private let database: SharedMimeInfo
    private let applications: [ApplicationRegistration]

    private(set) var warnings: [RegistryWarning] = []
    private(set) var records: [TypeIdentifier: TypeRecord] = [:]
    private(set) var declarers: [TypeIdentifier: [TypeDeclarer]] = [:]
    private(set) var mimeIndex: [String: [TypeIdentifier]] = [:]
    private(set) var mimeToType: [String: TypeIdentifier] = [:]
    private(set) var names = GlobIndex<GlobTarget>()
    private(set) var ancestors: [TypeIdentifier: [TypeIdentifier]] = [:]
    private(set) var exporters: [TypeIdentifier: String] = [:]

    private var working: [TypeIdentifier: WorkingType] = [:]
    private var order: [TypeIdentifier] = []
    private var synthetic: [(mimeType: String, identifier: TypeIdentifier)] = []

    init(builtins: [TypeDeclaration], sharedMimeInfo: SharedMimeInfo, applications: [ApplicationRegistration]) {
        self.builtins = builtins
        self.database = sharedMimeInfo
        self.applications = applications
    }

    mutating func build() {
        mergeDeclarations()
        indexDeclaredMIMETypes()
        joinSharedMimeInfo()
        breakCyclesAndReportDanglingParents()
        addImplicitParents()
        computeAncestors()
        indexNames()
        finishRecords()
        reportExtensionCollisions()
        checkClaims()
    }

    // MARK: - Declarations

    private mutating func mergeDeclarations() {
        var candidates: [TypeIdentifier: [(declaration: TypeDeclaration, origin: TypeOrigin)]] = [:]
        var ids: [TypeIdentifier] = []
        func add(_ declaration: TypeDeclaration, _ origin: TypeOrigin) {
            if candidates[declaration.identifier] == nil { ids.append(declaration.identifier) }
            candidates[declaration.identifier, default: []].append((declaration, origin))
        }
        for declaration in builtins { add(declaration, .builtin) }
        for application in applications {
            for declaration in application.manifest.typeDeclarations {
                add(declaration, .application(id: application.applicationID, declaration: declaration.kind))
            }
        }
        for identifier in ids {
            guard let list = candidates[identifier] else { continue }
            let builtin = list.firstIndex { $0.origin == .builtin }
            let exported = list.indices.filter {
                if case .application(_, .exported) = list[$0].origin { true } else { false }
            }
            let imported = list.indices.filter {
                if case .application(_, .imported) = list[$0].origin { true } else { false }
            }
            guard let winner = builtin ?? exported.first ?? imported.first else { continue }
            let chosen = list[winner]
            if builtin != nil {
                for index in exported {
                    if case .application(let app, _) = list[index].origin {
                        warnings.append(
                            RegistryWarning(
                                kind: .systemType,
                                type: identifier, applicationID: app,
                                message: "\(app) exports '\(identifier)', a system type; its declaration is not used"))
                    }
                }
            } else if exported.count > 1 {
                let apps = exported.compactMap {
                    if case .application(let app, _) = list[$0].origin { app } else { nil }
                }
                warnings.append(
                    RegistryWarning(
                        kind: .competingExports,
                        type: identifier, applicationID: apps.first,
                        message:
                            "'\(identifier)' is exported by \(apps.joined(separator: " and ")); \(apps[0])'s declaration (registered first) is used"
                    ))
            }
            var extensions = chosen.declaration.filenameExtensions
            var mimeTypes = chosen.declaration.mimeTypes
            var description = chosen.declaration.description
            let priority: Int
            switch chosen.origin {
            case .builtin: priority = 0
            case .application(let app, .exported):
                priority = 1
                exporters[identifier] = app
            default: priority = 3
            }
            if priority == 3 {
                for index in imported where index != winner {
                    let other = list[index].declaration
                    for ext in other.filenameExtensions where !extensions.contains(ext) { extensions.append(ext) }
                    for mime in other.mimeTypes where !mimeTypes.contains(mime) { mimeTypes.append(mime) }
                    if description == nil { description = other.description }
                    if other.conformsTo != chosen.declaration.conformsTo,
                        case .application(let app, _) = list[index].origin,
                        case .application(let first, _) = chosen.origin
                    {
                        warnings.append(
                            RegistryWarning(
                                kind: .conflictingImports,
                                type: identifier, applicationID: app,
                                message:
                                    "imported declarations of '\(identifier)' disagree: \(app) says it conforms to \(other.conformsTo.map(\.rawValue).joined(separator: ", ")); \(first)'s parents are used, tags are merged"
                            ))
                    }
                }
            }
            working[identifier] = WorkingType(
                identifier: chosen.declaration.identifier, parents: chosen.declaration.conformsTo,
                declaredExtensions: extensions, extensions: extensions, mimeTypes: mimeTypes, description: description,
                origin: chosen.origin, priority: priority, order: order.count)
            order.append(identifier)
            declarers[identifier] = list.indices.map { TypeDeclarer(origin: list[$0].origin, isInUse: $0 == winner) }
        }
    }

    private mutating func indexDeclaredMIMETypes() {
        let sorted = order.compactMap { working[$0] }.sorted { ($0.priority, $0.order) < ($1.priority, $1.order) }
        for type in sorted {
            for mime in type.mimeTypes where !(mimeIndex[mime]?.contains(type.identifier) ?? false) {
                mimeIndex[mime, default: []].append(type.identifier)
            }
        }
    }

    // MARK: - shared-mime-info

    /// Joins each shared-mime-info type to the declared type for the same files, as LaunchServices
    /// equates a type with the tags it declares: first by MIME type (the type or one of its aliases
    /// is a declared MIME tag), then by extension (one of its `*.ext` globs, which no other
    /// shared-mime-info type has, is a declared extension). The joined type takes every glob, MIME
    /// type and alias of the shared-mime-info type, so its magic and globs find the declared type.
    /// Any other MIME type becomes a type of its own, `mime.<media>.<subtype>`.
    private mutating func joinSharedMimeInfo() {
        // Each shared-mime-info type once: its names (type and aliases) and glob extensions.
        let entries: [(mime: String, definition: MimeTypeDefinition, names: [String], extensions: [String])] =
            database.sortedTypes.compactMap { mime in
                guard let definition = database.definitions[mime] else { return nil }
                return (mime, definition, [mime] + definition.aliases, Self.globExtensions(definition))
            }
        var unjoined: [Int] = []
        for (position, entry) in entries.enumerated() {
            let index = mimeIndex
            if let target = entry.names.lazy.compactMap({ index[$0]?.first }).first, working[target] != nil {
                join(entry.mime, entry.definition, names: entry.names, extensions: entry.extensions, into: target)
            } else {
                unjoined.append(position)
            }
        }

        var globOwners: [String: Int] = [:]
        for entry in entries {
            for ext in entry.extensions { globOwners[ext, default: 0] += 1 }
        }
        var declaredOwners: [String: TypeIdentifier] = [:]
        let declared = order.compactMap { working[$0] }.sorted { ($0.priority, $0.order) < ($1.priority, $1.order) }
        for type in declared where type.priority != 2 {
            for ext in type.declaredExtensions where declaredOwners[ext] == nil {
                declaredOwners[ext] = type.identifier
            }
        }
        var remaining: [Int] = []
        for position in unjoined {
            let entry = entries[position]
            let unambiguous = entry.extensions.lazy.filter { globOwners[$0] == 1 }
            if let target = unambiguous.compactMap({ declaredOwners[$0] }).first {
                join(entry.mime, entry.definition, names: entry.names, extensions: entry.extensions, into: target)
            } else {
                remaining.append(position)
            }
        }

        for position in remaining {
            let entry = entries[position]
            let identifier = syntheticIdentifier(entry.mime)
            working[identifier] = WorkingType(
                identifier: identifier, parents: [], declaredExtensions: [], extensions: entry.extensions,
                mimeTypes: entry.names, description: entry.definition.comment,
                origin: .sharedMimeInfo(mimeType: entry.mime), priority: 2, order: order.count)
            order.append(identifier)
            declarers[identifier] = [TypeDeclarer(origin: .sharedMimeInfo(mimeType: entry.mime), isInUse: true)]
            synthetic.append((entry.mime, identifier))
            index(entry.names, as: identifier)
        }
        for (mime, identifier) in synthetic {
            var parents: [TypeIdentifier] = []
            for parent in database.parents(of: mime) {
                guard let type = mimeToType[parent], type != identifier, !parents.contains(type) else { continue }
                parents.append(type)
            }
            if parents.isEmpty {
                parents = mime.hasPrefix("text/") ? [.plainText] : mime.hasPrefix("inode/") ? [.item] : [.data]
            }
            working[identifier]?.parents = parents
        }
    }

    /// Makes a shared-mime-info type (and its aliases) a tag of a declared type.
    private mutating func join(
        _ mime: String, _ definition: MimeTypeDefinition, names: [String], extensions: [String],
        into target: TypeIdentifier
    ) {
        guard let type = working[target] else { return }
        for name in names where !type.mimeTypes.contains(name) { type.mimeTypes.append(name) }
        for ext in extensions where !type.extensions.contains(ext) { type.extensions.append(ext) }
        if type.description == nil { type.description = definition.comment }
        working[target] = type
        declarers[target, default: []].append(TypeDeclarer(origin: .sharedMimeInfo(mimeType: mime), isInUse: false))
        index(names, as: target)
    }

    private mutating func index(_ names: [String], as identifier: TypeIdentifier) {
        for name in names {
            if mimeToType[name] == nil { mimeToType[name] = identifier }
            if !(mimeIndex[name]?.contains(identifier) ?? false) { mimeIndex[name, default: []].append(identifier) }
        }
    }

    /// The extensions of a type's case-insensitive `*.ext` globs, lower-cased.
    private static func globExtensions(_ definition: MimeTypeDefinition?) -> [String] {
        var result: [String] = []
        for glob in definition?.globs ?? [] where !glob.caseSensitive {
            guard let suffix = GlobPattern.simpleSuffix(glob.pattern), suffix.hasPrefix("."), suffix.count > 1 else {
                continue
            }
            let ext = suffix.dropFirst().lowercased()
            if !result.contains(ext) { result.append(ext) }
        }
        return result
    }

    /// `mime.<media>.<subtype>`, characters outside letters, digits, `-` and `.` replaced by `-`.
    private func syntheticIdentifier(_ mime: String) -> TypeIdentifier {
        var bytes = Array("mime.".utf8)
        for byte in mime.utf8 {
            switch byte {
            case 0x61...0x7A, 0x30...0x39, 0x2D, 0x2E: bytes.append(byte)
            case 0x41...0x5A: bytes.append(byte + 0x20)
            case 0x2F: bytes.append(0x2E)
            default: bytes.append(0x2D)
            }
        }
        while let last = bytes.last, last == 0x2E || last == 0x2D { bytes.removeLast() }
        let text = String(decoding: bytes, as: UTF8.self)
        var candidate = TypeIdentifier(text)
        var suffix = 2
        while working[candidate] != nil {
            candidate = TypeIdentifier("\(text)-\(suffix)")
            suffix += 1
        }
        return candidate
    }

    // MARK: - Graph

    private func applicationID(of identifier: TypeIdentifier) -> String? {
        if case .application(let app, _) = working[identifier]?.origin { return app }
        return nil
    }

    private mutating func breakCyclesAndReportDanglingParents() {
        var state: [TypeIdentifier: Int] = [:]
        var stack: [TypeIdentifier] = []
        func visit(_ identifier: TypeIdentifier, _ builder: inout RegistryBuilder) {
            state[identifier] = 1
            stack.append(identifier)
            var kept: [TypeIdentifier] = []
            for parent in builder.working[identifier]?.parents ?? [] {
                if parent == identifier { continue }
                if builder.working[parent] == nil {
                    builder.warnings.append(
                        RegistryWarning(
                            kind: .danglingParent,
                            type: identifier, applicationID: builder.applicationID(of: identifier),
                            message: "'\(identifier)' conforms to '\(parent)', which nobody declares"))
                    kept.append(parent)
                    continue
                }
                if state[parent] == 1 {
                    let cycle = stack.drop { $0 != parent }.map(\.rawValue) + [parent.rawValue]
                    builder.warnings.append(
                        RegistryWarning(
                            kind: .conformanceCycle,
                            type: identifier, applicationID: builder.applicationID(of: identifier),
                            message:
                                "conformance cycle \(cycle.joined(separator: " → ")); the link from '\(identifier)' to '\(parent)' is ignored"
                        ))
                    continue
                }
                kept.append(parent)
                if state[parent] == nil { visit(parent, &builder) }
            }
            builder.working[identifier]?.parents = kept
            stack.removeLast()
            state[identifier] = 2
        }
        for identifier in order where state[identifier] == nil { visit(identifier, &self) }
    }

    /// Declared types that reach no physical root get `public.data`; shared-mime-info types get
    /// the functional parent of their media type and `public.data`/`public.plain-text` if missing.
    private mutating func addImplicitParents() {
        guard working[.item] != nil else { return }
        let types = working
        var added: [RegistryWarning] = []
        var done: Set<TypeIdentifier> = []
        func closure(_ identifier: TypeIdentifier) -> Set<TypeIdentifier> {
            var seen: Set<TypeIdentifier> = []
            var queue = types[identifier]?.parents ?? []
            while let next = queue.popLast() {
                guard seen.insert(next).inserted else { continue }
                queue += types[next]?.parents ?? []
            }
            return seen
        }
        func fix(_ identifier: TypeIdentifier) {
            guard done.insert(identifier).inserted, let type = types[identifier] else { return }
            for parent in type.parents { fix(parent) }
            let reached = closure(identifier)
            var extra: [TypeIdentifier] = []
            switch type.origin {
            case .application(let app, _):
                if !reached.contains(.item) {
                    extra.append(.data)
                    added.append(
                        RegistryWarning(
                            kind: .implicitParent,
                            type: identifier, applicationID: app,
                            message:
                                "'\(identifier)' does not conform to public.data, public.directory or public.item through declared types; it is treated as conforming to public.data"
                        ))
                }
            case .sharedMimeInfo(let mime):
                let media = MIMEType.mediaType(mime)
                let functional: TypeIdentifier? =
                    switch media {
                    case "image": .image
                    case "audio": .audio
                    case "video": .movie
                    case "font": .font
                    default: nil
                    }
                if let functional, !reached.contains(functional), types[functional] != nil { extra.append(functional) }
                if media == "text" && !reached.contains(.text) { extra.append(.plainText) }
                if media == "inode" {
                    if !reached.contains(.item) { extra.append(.item) }
                } else if !reached.contains(.data) && extra.isEmpty {
                    extra.append(.data)
                }
            default:
                break
            }
            if !extra.isEmpty { types[identifier]?.parents += extra.filter { $0 != identifier } }
        }
        for identifier in order { fix(identifier) }
        warnings += added
    }

    /// Every type's supertypes, depth-first in declared order (iterative: chains may be long).
    private mutating func computeAncestors() {
        for identifier in order {
            var result: [TypeIdentifier] = []
            var seen: Set<TypeIdentifier> = [identifier]
            var stack: [TypeIdentifier] = (working[identifier]?.parents ?? []).reversed()
            while let next = stack.popLast() {
                guard seen.insert(next).inserted else { continue }
                result.append(next)
                stack += (working[next]?.parents ?? []).reversed()
            }
            ancestors[identifier] = result
        }
    }

    // MARK: - Names, records, claims

    /// The filename patterns: each declared extension as `*.ext` at shared-mime-info's default
    /// weight 50, and every shared-mime-info glob with its weight and case sensitivity.
    private mutating func indexNames() {
        for identifier in order {
            guard let type = working[identifier], type.priority != 2 else { continue }
            for ext in type.declaredExtensions {
                names.insert(
                    pattern: "*." + ext, weight: 50, caseSensitive: false,
                    payload: GlobTarget(type: identifier, mimeType: nil), priority: type.priority)
            }
        }
        for (mime, glob) in database.allGlobs {
            guard let identifier = mimeToType[mime] else { continue }
            names.insert(
                pattern: glob.pattern, weight: glob.weight, caseSensitive: glob.caseSensitive,
                payload: GlobTarget(type: identifier, mimeType: mime), priority: 2)
        }
    }

    private mutating func finishRecords() {
        var packageTypes: Set<TypeIdentifier> = []
        for application in applications {
            for claim in application.manifest.handlerClaims where claim.isPackage {
                packageTypes.formUnion(claim.contentTypes)
            }
        }
        for identifier in order {
            guard let type = working[identifier] else { continue }
            let isPackage = packageTypes.contains(identifier) || ancestors[identifier]?.contains(.package) == true
            records[identifier] = TypeRecord(
                identifier: type.identifier, conformsTo: type.parents, filenameExtensions: type.extensions,
                mimeTypes: type.mimeTypes, description: type.description, origin: type.origin, isPackage: isPackage)
        }
    }

    /// Reports every extension two different types claim when one of them is an application's
    /// type: names alone cannot tell such files apart, so the content decides (see `resolve`).
    private mutating func reportExtensionCollisions() {
        var claimants: [String: [TypeIdentifier]] = [:]
        var extensions: [String] = []
        let ordered = order.compactMap { working[$0] }.sorted { ($0.priority, $0.order) < ($1.priority, $1.order) }
        for type in ordered {
            for ext in type.extensions where !(claimants[ext]?.contains(type.identifier) ?? false) {
                if claimants[ext] == nil { extensions.append(ext) }
                claimants[ext, default: []].append(type.identifier)
            }
        }
        for ext in extensions.sorted() {
            guard let types = claimants[ext], types.count > 1 else { continue }
            let apps = types.compactMap(applicationID(of:))
            guard !apps.isEmpty else { continue }
            let described = types.map { "\($0) (\(working[$0]?.origin.description ?? "?"))" }
            warnings.append(
                RegistryWarning(
                    kind: .extensionCollision, types: types, applicationIDs: apps,
                    message:
                        "extension collision: .\(ext) is claimed by \(described.joined(separator: " and ")); a file "
                        + "named *.\(ext) gets the type its content's magic matches, otherwise \(types[0])"))
        }
    }

    private mutating func checkClaims() {
        var owners: [TypeIdentifier: [String]] = [:]
        for application in applications {
            for claim in application.manifest.handlerClaims {
                for type in claim.contentTypes {
                    if records[type] == nil && !type.isDynamic {
                        warnings.append(
                            RegistryWarning(
                                kind: .undeclaredClaim,
                                type: type, applicationID: application.applicationID,
                                message:
                                    "\(application.applicationID) claims '\(type)', which no registered type declares; only files of exactly that type can match"
                            ))
                    }
                    if claim.canHandle && claim.rank == .owner
                        && !(owners[type]?.contains(application.applicationID) ?? false)
                    {
                        owners[type, default: []].append(application.applicationID)
                    }
                }
            }
        }
        for (type, apps) in owners.sorted(by: { $0.key < $1.key }) where apps.count > 1 {
            let exporter = exporters[type]
            let winner = apps.first { $0 == exporter } ?? apps[0]
            let reason: String
            if winner == exporter {
                let otherExporters = apps.filter { app in
                    app != winner && (declarers[type] ?? []).contains {
                        if case .application(let id, .exported) = $0.origin { id == app } else { false }
                    }
                }
                reason =
                    otherExporters.isEmpty
                    ? "it exports the type"
                    : "its exported declaration is the one in use, registered first"
            } else {
                reason = "it was registered first"
            }
            warnings.append(
                RegistryWarning(
                    kind: .conflictingOwners, types: [type], applicationIDs: apps,
                    message:
                        "'\(type)' has conflicting owners: \(apps.joined(separator: ", ")) all claim rank Owner; \(winner) is chosen (\(reason))"
                ))
        }
    }
}
