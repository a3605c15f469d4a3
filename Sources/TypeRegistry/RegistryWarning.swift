/// A problem in the combined registry: conflicting declarations, squatting, dangling parents,
/// conformance cycles, claims of types nobody declares, conflicting owners.
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
    }

    /// What kind of problem it is.
    public let kind: Kind
    /// The type concerned, if any.
    public let type: TypeIdentifier?
    /// The application concerned, if any.
    public let applicationID: String?
    /// What is wrong and what the registry does about it.
    public let message: String

    /// Creates a warning.
    public init(kind: Kind, type: TypeIdentifier? = nil, applicationID: String? = nil, message: String) {
        self.kind = kind
        self.type = type
        self.applicationID = applicationID
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
