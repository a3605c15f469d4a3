/// Bounds on one HTTP message, checked as it arrives.
public struct HTTPLimits: Sendable {
    /// The start line and all headers together.
    public var headerBytes = 16 << 10
    /// How many headers.
    public var headerCount = 64
    /// A body the parser keeps (JSON); bodies given to a sink are bounded by their reader.
    public var bodyBytes = 1 << 20

    /// The default limits.
    public init() {}
}
