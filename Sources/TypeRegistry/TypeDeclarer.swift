/// One source that declares a type, and whether its definition is the one in use.
public struct TypeDeclarer: Hashable, Sendable, CustomStringConvertible {
    /// Where the declaration comes from.
    public let origin: TypeOrigin
    /// Whether this declaration defines the type's parents and description.
    public let isInUse: Bool

    /// Creates a declarer.
    public init(origin: TypeOrigin, isInUse: Bool) {
        self.origin = origin
        self.isInUse = isInUse
    }

    /// `builtin`, `app com.example (exported)`, … with ` (not used)` for a losing declaration.
    public var description: String { isInUse ? origin.description : "\(origin) (not used)" }
}
