public import Foundation

/// An application that can take a type, with the claim that matched and why.
public struct HandlerCandidate: Hashable, Sendable {
    /// `CFBundleIdentifier`.
    public let applicationID: String
    /// The application's name.
    public let applicationName: String
    /// The document type entry that matched best.
    public let claim: HandlerClaim
    /// How it matched.
    public let match: HandlerMatch
    /// How the application imports.
    public let importer: ShareImporter?
    /// Whether the application's exported declaration of the type is the one in use (it owns the type).
    public let declaresType: Bool
    /// Whether the application exports the type at all, in use or not.
    public let exportsType: Bool
    /// When the application was registered.
    public let registeredAt: Date

    /// Creates a candidate.
    public init(
        applicationID: String, applicationName: String, claim: HandlerClaim, match: HandlerMatch,
        importer: ShareImporter?,
        declaresType: Bool, exportsType: Bool? = nil, registeredAt: Date
    ) {
        self.applicationID = applicationID
        self.applicationName = applicationName
        self.claim = claim
        self.match = match
        self.importer = importer
        self.declaresType = declaresType
        self.exportsType = exportsType ?? declaresType
        self.registeredAt = registeredAt
    }

    /// The claim's rank.
    public var rank: HandlerRank { claim.rank }
}
