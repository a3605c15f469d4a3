/// A problem in the combined registry: conflicting declarations, squatting, dangling parents,
/// conformance cycles, claims of types nobody declares, conflicting owners.
public struct RegistryWarning: Hashable, Sendable, CustomStringConvertible {
    /// The type concerned, if any.
    public let type: TypeIdentifier?
    /// The application concerned, if any.
    public let applicationID: String?
    /// What is wrong and what the registry does about it.
    public let message: String

    /// Creates a warning.
    public init(type: TypeIdentifier? = nil, applicationID: String? = nil, message: String) {
        self.type = type
        self.applicationID = applicationID
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
