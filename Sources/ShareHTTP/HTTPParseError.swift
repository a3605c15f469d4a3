/// Why an HTTP message was not accepted.
public enum HTTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// It is not HTTP/1.x as http-parser reads it.
    case malformed(String)
    /// Its start line and headers are longer than the limit, or too many.
    case headersTooLong(limit: Int)
    /// Its body is longer than the parser keeps.
    case bodyTooLong(limit: Int)
    /// The body's reader stopped it.
    case stoppedBySink

    public var description: String {
        switch self {
        case .malformed(let reason): "the HTTP message is malformed (\(reason))"
        case .headersTooLong(let limit): "the HTTP headers are longer than \(limit) bytes or too many"
        case .bodyTooLong(let limit): "the HTTP body is longer than the \(limit) bytes share reads"
        case .stoppedBySink: "the HTTP body was not taken"
        }
    }
}
