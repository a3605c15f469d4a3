public import ShareWire

/// Why reading a frame from a connection failed.
public enum ConnectionError: Error, Sendable, CustomStringConvertible {
    /// The peer's bytes broke the protocol; answer with ERROR.
    case wire(WireError)
    /// The connection itself failed (closed, reset, timed out, TLS error).
    case transport(TransportError)

    public var description: String {
        switch self {
        case .wire(let error): error.description
        case .transport(let error): error.description
        }
    }
}
