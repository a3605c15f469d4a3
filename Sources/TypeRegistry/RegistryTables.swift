/// The merged tables of a ``TypeRegistry``, in memory, as ``RegistryBuilder`` makes them.
struct RegistryTables: Sendable {
    /// Every declared type (built-in, shared-mime-info or an application's), by identifier.
    var records: [TypeIdentifier: TypeRecord] = [:]
    /// Every declaration of each type, the one in use marked.
    var declarers: [TypeIdentifier: [TypeDeclarer]] = [:]
    /// The declared types tagged with each MIME type, best first.
    var mimeIndex: [String: [TypeIdentifier]] = [:]
    /// The type each shared-mime-info type (and alias) maps to.
    var mimeToType: [String: TypeIdentifier] = [:]
    /// Filename patterns: declared extensions and shared-mime-info globs.
    var names = GlobIndex<GlobTarget>()
    /// Every type's supertypes, depth-first in declared order.
    var ancestors: [TypeIdentifier: [TypeIdentifier]] = [:]
    /// The application whose exported declaration of a type is in use.
    var exporters: [TypeIdentifier: String] = [:]
    /// Problems found while merging.
    var warnings: [RegistryWarning] = []
}
