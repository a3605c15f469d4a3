/// A `CFBundleDocumentTypes` entry exactly as a manifest states it (for `share types inspect`).
///
/// Values are as declared (trimmed; a single string where a list belongs becomes a one-element
/// list). `role` and `rank` are the declared strings, `nil` when absent: the effective values
/// (Viewer and Default when absent) are in ``HandlerClaim``.
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

    /// Creates a document type.
    public init(name: String?, role: String?, rank: String?, contentTypes: [String], extensions: [String]) {
        self.name = name
        self.role = role
        self.rank = rank
        self.contentTypes = contentTypes
        self.extensions = extensions
    }

    private enum CodingKeys: String, CodingKey {
        case name, role, rank, contentTypes, extensions
    }

    /// Decodes, accepting `null` for name, role and rank.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        role = try container.decodeIfPresent(String.self, forKey: .role)
        rank = try container.decodeIfPresent(String.self, forKey: .rank)
        contentTypes = try container.decode([String].self, forKey: .contentTypes)
        extensions = try container.decode([String].self, forKey: .extensions)
    }

    /// Encodes every key, writing `null` for missing values.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(role, forKey: .role)
        try container.encode(rank, forKey: .rank)
        try container.encode(contentTypes, forKey: .contentTypes)
        try container.encode(extensions, forKey: .extensions)
    }
}
