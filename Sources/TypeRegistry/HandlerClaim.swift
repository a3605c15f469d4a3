/// A cleaned-up document type claim: which files an application says it can import.
public struct HandlerClaim: Hashable, Sendable, Codable {
    /// `CFBundleTypeName`, if any.
    public var name: String?
    /// The effective role (Viewer when none is declared).
    public var role: HandlerRole
    /// The effective rank (Default when none is declared).
    public var rank: HandlerRank
    /// Claimed types, excluding wildcards.
    public var contentTypes: [TypeIdentifier]
    /// Claimed filename extensions (lower-cased, no dot), excluding `*`.
    public var filenameExtensions: [String]
    /// Claimed MIME types (`CFBundleTypeMIMETypes`, lower-cased), excluding wildcards.
    public var mimeTypes: [String]
    /// Whether the claim covers any file: `*`, `public.data`, `public.item` or `public.content`.
    /// Such a claim ranks below every specific claim.
    public var isWildcard: Bool
    /// The wildcard types claimed (`public.data`, `public.item`, `public.content`); `*` appears as `public.item`.
    public var wildcardTypes: [TypeIdentifier]
    /// `LSTypeIsPackage`: the claimed types are directories shown as one document.
    public var isPackage: Bool
    /// Position in `CFBundleDocumentTypes`, for messages and tie-breaks.
    public var index: Int

    /// Creates a claim.
    public init(
        name: String?, role: HandlerRole, rank: HandlerRank, contentTypes: [TypeIdentifier],
        filenameExtensions: [String], mimeTypes: [String] = [], isWildcard: Bool = false,
        wildcardTypes: [TypeIdentifier] = [], isPackage: Bool = false, index: Int
    ) {
        self.name = name
        self.role = role
        self.rank = rank
        self.contentTypes = contentTypes
        self.filenameExtensions = filenameExtensions
        self.mimeTypes = mimeTypes
        self.isWildcard = isWildcard
        self.wildcardTypes = wildcardTypes
        self.isPackage = isPackage
        self.index = index
    }

    /// Whether this claim can ever make its application a handler.
    public var canHandle: Bool { role.canHandle && rank != .none }
}
