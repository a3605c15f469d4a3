/// One MIME type of the shared-mime-info database, merged from every package file that mentions it.
public struct MimeTypeDefinition: Hashable, Sendable {
    /// The canonical MIME type, lower-cased.
    public let mimeType: String
    /// The untranslated `<comment>`.
    public var comment: String?
    /// `<acronym>`, if any.
    public var acronym: String?
    /// `<expanded-acronym>`, if any.
    public var expandedAcronym: String?
    /// Filename patterns.
    public var globs: [MimeGlob]
    /// Content rules.
    public var magic: [MagicRule]
    /// Other names of this type (`application/x-gzip` for `application/gzip`).
    public var aliases: [String]
    /// `<sub-class-of>` parents, lower-cased, possibly aliases.
    public var parents: [String]
    /// `<generic-icon>`, if any.
    public var genericIcon: String?
    /// The package files that define the type, lowest precedence first.
    public var sources: [String]

    /// Creates an empty definition.
    public init(mimeType: String) {
        self.mimeType = mimeType
        self.globs = []
        self.magic = []
        self.aliases = []
        self.parents = []
        self.sources = []
    }
}
