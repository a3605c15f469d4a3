/// A `CFBundleDocumentTypes` entry exactly as a manifest states it (for `share types inspect`).
///
/// Values are as declared (trimmed; a single string where a list belongs becomes a one-element
/// list). `role` and `rank` are the declared strings, `nil` when absent: the effective values
/// (Viewer and Default when absent) are in ``HandlerClaim``. ``isPackage`` is `nil` when the entry
/// has no readable `LSTypeIsPackage`.
public struct DocumentType: Hashable, Sendable, Codable {
    /// `CFBundleTypeName`.
    public var name: String?
    /// `CFBundleTypeRole` as written.
    public var role: String?
    /// `LSHandlerRank` as written.
    public var rank: String?
    /// `LSItemContentTypes`.
    public var contentTypes: [String]
    /// `CFBundleTypeExtensions`.
    public var extensions: [String]
    /// `CFBundleTypeMIMETypes`.
    public var mimeTypes: [String]
    /// `CFBundleTypeOSTypes` (four-character codes; kept, not used for routing).
    public var osTypes: [String]
    /// `LSTypeIsPackage`, when the entry has a readable one.
    public var isPackage: Bool?
    /// `NSDocumentClass`.
    public var documentClass: String?
    /// `NSExportableTypes`.
    public var exportableTypes: [String]
    /// `CFBundleTypeIconFile`, `CFBundleTypeIconFiles` and `CFBundleTypeIconName`, in that order.
    public var icons: [String]

    /// Creates a document type.
    public init(
        name: String?, role: String?, rank: String?, contentTypes: [String], extensions: [String],
        mimeTypes: [String] = [], osTypes: [String] = [], isPackage: Bool? = nil, documentClass: String? = nil,
        exportableTypes: [String] = [], icons: [String] = []
    ) {
        self.name = name
        self.role = role
        self.rank = rank
        self.contentTypes = contentTypes
        self.extensions = extensions
        self.mimeTypes = mimeTypes
        self.osTypes = osTypes
        self.isPackage = isPackage
        self.documentClass = documentClass
        self.exportableTypes = exportableTypes
        self.icons = icons
    }

    private enum CodingKeys: String, CodingKey {
        case name, role, rank, contentTypes, extensions, mimeTypes, osTypes, isPackage, documentClass
        case exportableTypes, icons
    }

    /// Decodes, accepting `null` for the optional values and registrations stored before the
    /// later keys existed.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        role = try container.decodeIfPresent(String.self, forKey: .role)
        rank = try container.decodeIfPresent(String.self, forKey: .rank)
        contentTypes = try container.decode([String].self, forKey: .contentTypes)
        extensions = try container.decode([String].self, forKey: .extensions)
        mimeTypes = try container.decodeIfPresent([String].self, forKey: .mimeTypes) ?? []
        osTypes = try container.decodeIfPresent([String].self, forKey: .osTypes) ?? []
        isPackage = try container.decodeIfPresent(Bool.self, forKey: .isPackage)
        documentClass = try container.decodeIfPresent(String.self, forKey: .documentClass)
        exportableTypes = try container.decodeIfPresent([String].self, forKey: .exportableTypes) ?? []
        icons = try container.decodeIfPresent([String].self, forKey: .icons) ?? []
    }

    /// Encodes every key, writing `null` for missing values.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(role, forKey: .role)
        try container.encode(rank, forKey: .rank)
        try container.encode(contentTypes, forKey: .contentTypes)
        try container.encode(extensions, forKey: .extensions)
        try container.encode(mimeTypes, forKey: .mimeTypes)
        try container.encode(osTypes, forKey: .osTypes)
        try container.encode(isPackage, forKey: .isPackage)
        try container.encode(documentClass, forKey: .documentClass)
        try container.encode(exportableTypes, forKey: .exportableTypes)
        try container.encode(icons, forKey: .icons)
    }
}
