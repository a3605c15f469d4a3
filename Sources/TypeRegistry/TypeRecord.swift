/// Everything the registry knows about one type.
public struct TypeRecord: Hashable, Sendable {
    /// The type's identifier, spelled as its winning declaration spells it.
    public let identifier: TypeIdentifier
    /// Direct parents, in declared order.
    public let conformsTo: [TypeIdentifier]
    /// Filename extensions (lower-cased, no dot), preferred first.
    public let filenameExtensions: [String]
    /// MIME types (lower-cased), canonical first; includes shared-mime-info aliases.
    public let mimeTypes: [String]
    /// The user-visible description, if any.
    public let description: String?
    /// Where the definition comes from.
    public let origin: TypeOrigin
    /// Whether directories of this type are packages (one document): the type conforms to
    /// `com.apple.package`, or a registered document type marks it with `LSTypeIsPackage`.
    public let isPackage: Bool

    /// Creates a record.
    public init(
        identifier: TypeIdentifier, conformsTo: [TypeIdentifier], filenameExtensions: [String],
        mimeTypes: [String], description: String?, origin: TypeOrigin, isPackage: Bool
    ) {
        self.identifier = identifier
        self.conformsTo = conformsTo
        self.filenameExtensions = filenameExtensions
        self.mimeTypes = mimeTypes
        self.description = description
        self.origin = origin
        self.isPackage = isPackage
    }

    /// Whether the record describes a dynamic type (`dyn.…`).
    public var isDynamic: Bool { identifier.isDynamic }
    /// The first filename extension, used when a name must be made up.
    public var preferredFilenameExtension: String? { filenameExtensions.first }
    /// The canonical MIME type.
    public var preferredMIMEType: String? { mimeTypes.first }
}
