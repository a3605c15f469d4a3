/// A problem in the combined registry: conflicting declarations, squatting, dangling parents,
/// conformance cycles, claims of types nobody declares, conflicting owners, two types claiming
/// one filename extension.
public struct RegistryWarning: Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem it is.
    public enum Kind: String, Hashable, Sendable {
        /// Two applications export the same type; the first registered wins.
        case competingExports
        /// Imported declarations of one type disagree on its parents.
        case conflictingImports
        /// An application declares a type only the system may declare.
        case systemType
        /// A type conforms to a type nobody declares.
        case danglingParent
        /// A conformance cycle; the closing link is ignored.
        case conformanceCycle
        /// A declared type reaches no physical root and is treated as `public.data`.
        case implicitParent
        /// An application claims a type nobody declares.
        case undeclaredClaim
        /// Several applications claim rank Owner of one type.
        case conflictingOwners
        /// Two different types claim one filename extension, at least one of them an application's.
        case extensionCollision
    }

    /// What kind of problem it is.
    public let kind: Kind
    /// The type concerned, if any (the first of ``types``).
    public let type: TypeIdentifier?
    /// The application concerned, if any (the first of ``applicationIDs``).
    public let applicationID: String?
    /// Every type concerned.
    public let types: [TypeIdentifier]
    /// Every application concerned.
    public let applicationIDs: [String]
    /// What is wrong and what the registry does about it.
    public let message: String

    /// Creates a warning about one type and one application.
    public init(kind: Kind, type: TypeIdentifier? = nil, applicationID: String? = nil, message: String) {
        self.init(kind: kind, types: type.map { [$0] } ?? [], applicationIDs: applicationID.map { [$0] } ?? [],
            message: message)
    }

    /// Creates a warning about several types and applications.
    public init(kind: Kind, types: [TypeIdentifier], applicationIDs: [String], message: String) {
        self.kind = kind
        self.type = types.first
        self.applicationID = applicationIDs.first
        self.types = types
        self.applicationIDs = applicationIDs
        self.message = message
    }

    /// Whether the warning concerns an application (compared ignoring case).
    public func concerns(applicationID: String) -> Bool {
        applicationIDs.contains { $0.lowercased() == applicationID.lowercased() }
    }

    /// The message.
    public var description: String { message }
}
