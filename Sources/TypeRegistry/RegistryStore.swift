/// Where a registry's merged tables are: in memory, as ``RegistryBuilder`` made them, or in a
/// snapshot read in place (``RegistrySnapshot``), so that one lookup decodes only what it needs.
enum RegistryStore: Sendable {
    case built(RegistryTables)
    case snapshot(RegistrySnapshot)

    /// Every table, in memory (a snapshot decodes them all once, on first use): for the questions
    /// about all types at once.
    var tables: RegistryTables {
        switch self {
        case .built(let tables): tables
        case .snapshot(let snapshot): snapshot.registryTables
        }
    }

    func record(_ identifier: TypeIdentifier) -> TypeRecord? {
        switch self {
        case .built(let tables): tables.records[identifier]
        case .snapshot(let snapshot): snapshot.record(identifier)
        }
    }

    func isDeclared(_ identifier: TypeIdentifier) -> Bool {
        switch self {
        case .built(let tables): tables.records[identifier] != nil
        case .snapshot(let snapshot): snapshot.isDeclared(identifier)
        }
    }

    func declarers(_ identifier: TypeIdentifier) -> [TypeDeclarer]? {
        switch self {
        case .built(let tables): tables.declarers[identifier]
        case .snapshot(let snapshot): snapshot.declarers(identifier)
        }
    }

    func ancestors(_ identifier: TypeIdentifier) -> [TypeIdentifier]? {
        switch self {
        case .built(let tables): tables.ancestors[identifier]
        case .snapshot(let snapshot): snapshot.ancestors(identifier)
        }
    }

    func exporter(_ identifier: TypeIdentifier) -> String? {
        switch self {
        case .built(let tables): tables.exporters[identifier]
        case .snapshot(let snapshot): snapshot.exporter(identifier)
        }
    }

    /// The declared types tagged with a MIME type (exactly as given), best first.
    func types(taggedWith mimeType: String) -> [TypeIdentifier]? {
        switch self {
        case .built(let tables): tables.mimeIndex[mimeType]
        case .snapshot(let snapshot): snapshot.types(taggedWith: mimeType)
        }
    }

    /// The type a shared-mime-info type (exactly as given) maps to.
    func type(forSharedMIMEType mimeType: String) -> TypeIdentifier? {
        switch self {
        case .built(let tables): tables.mimeToType[mimeType]
        case .snapshot(let snapshot): snapshot.type(forSharedMIMEType: mimeType)
        }
    }

    /// The filename patterns that match a name, best first (see ``GlobIndex``).
    func nameMatches(_ fileName: String) -> [GlobIndex<GlobTarget>.Entry] {
        switch self {
        case .built(let tables): tables.names.matches(fileName)
        case .snapshot(let snapshot): snapshot.nameMatches(fileName)
        }
    }

    /// The `*.<ext>` patterns of an extension.
    func entries(forExtension ext: String) -> [GlobIndex<GlobTarget>.Entry] {
        switch self {
        case .built(let tables): tables.names.entries(forExtension: ext)
        case .snapshot(let snapshot): snapshot.entries(forExtension: ext)
        }
    }

    var warnings: [RegistryWarning] {
        switch self {
        case .built(let tables): tables.warnings
        case .snapshot(let snapshot): snapshot.warnings
        }
    }
}
