/// A cleaned-up type declaration, ready for the registry.
///
/// Identifiers are trimmed, extensions are lower-cased without a leading dot, MIME types are
/// lower-cased without parameters, duplicates and unusable values are gone. The manifest
/// parser produces these next to the as-declared ``DeclaredType`` values it reports.
public struct TypeDeclaration: Hashable, Sendable, Codable {
    /// The declared type.
    public var identifier: TypeIdentifier
    /// Its parents, in declared order (the order matters for inherited properties).
    public var conformsTo: [TypeIdentifier]
    /// Filename extensions without the dot, lower-cased, preferred first; may be compound (`tar.gz`).
    public var filenameExtensions: [String]
    /// MIME types, lower-cased, preferred first.
    public var mimeTypes: [String]
    /// The user-visible description, if any.
    public var description: String?
    /// Whether the declaration is exported (owned) or imported.
    public var kind: DeclarationKind

    /// Creates a declaration; values are used as given.
    public init(
        identifier: TypeIdentifier, conformsTo: [TypeIdentifier], filenameExtensions: [String] = [],
        mimeTypes: [String] = [], description: String? = nil, kind: DeclarationKind = .exported
    ) {
        self.identifier = identifier
        self.conformsTo = conformsTo
        self.filenameExtensions = filenameExtensions
        self.mimeTypes = mimeTypes
        self.description = description
        self.kind = kind
    }
}
