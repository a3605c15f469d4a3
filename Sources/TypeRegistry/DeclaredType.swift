/// A type declaration exactly as a manifest states it (for `share types inspect`).
///
/// Values are as declared except that surrounding whitespace is trimmed and a single string
/// where a list belongs becomes a one-element list. ``isPackage`` is true when the declaration
/// conforms directly to `com.apple.package` or a document type with `LSTypeIsPackage` lists it.
public struct DeclaredType: Hashable, Sendable, Codable {
    /// `UTTypeIdentifier`, trimmed.
    public var identifier: String
    /// Whether it came from `UTExportedTypeDeclarations` or `UTImportedTypeDeclarations`.
    public var declaration: DeclarationKind
    /// `UTTypeConformsTo`, each trimmed.
    public var conformsTo: [String]
    /// `UTTypeTagSpecification` → `public.filename-extension`, each trimmed.
    public var extensions: [String]
    /// `UTTypeTagSpecification` → `public.mime-type`, each trimmed.
    public var mimeTypes: [String]
    /// `UTTypeDescription`, trimmed; `nil` when absent.
    public var description: String?
    /// Whether the manifest marks the type as a package (see the type's documentation).
    public var isPackage: Bool

    /// Creates a declared type.
    public init(
        identifier: String, declaration: DeclarationKind, conformsTo: [String], extensions: [String],
        mimeTypes: [String], description: String?, isPackage: Bool
    ) {
        self.identifier = identifier
        self.declaration = declaration
        self.conformsTo = conformsTo
        self.extensions = extensions
        self.mimeTypes = mimeTypes
        self.description = description
        self.isPackage = isPackage
    }

    private enum CodingKeys: String, CodingKey {
        case identifier, declaration, conformsTo, extensions, mimeTypes, description, isPackage
    }

    /// Decodes, accepting `null` for the description.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        identifier = try container.decode(String.self, forKey: .identifier)
        declaration = try container.decode(DeclarationKind.self, forKey: .declaration)
        conformsTo = try container.decode([String].self, forKey: .conformsTo)
        extensions = try container.decode([String].self, forKey: .extensions)
        mimeTypes = try container.decode([String].self, forKey: .mimeTypes)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        isPackage = try container.decode(Bool.self, forKey: .isPackage)
    }

    /// Encodes every key, writing `null` for a missing description.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(identifier, forKey: .identifier)
        try container.encode(declaration, forKey: .declaration)
        try container.encode(conformsTo, forKey: .conformsTo)
        try container.encode(extensions, forKey: .extensions)
        try container.encode(mimeTypes, forKey: .mimeTypes)
        try container.encode(description, forKey: .description)
        try container.encode(isPackage, forKey: .isPackage)
    }
}
