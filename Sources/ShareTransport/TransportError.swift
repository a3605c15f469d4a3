public import ShareTLS

/// A failure to reach a peer or to move bytes to it.
public enum TransportError: Error, Sendable, CustomStringConvertible {
    /// The endpoint text is not `HOST:PORT`.
    case invalidEndpoint(String)
    /// The host name did not resolve.
    case hostNotFound(host: String, reason: String)
    /// Nobody listens at the address (ECONNREFUSED).
    case connectionRefused(endpoint: String)
    /// No answer within the time allowed.
    case timedOut(endpoint: String, operation: String)
    /// Another socket error, with its errno text.
    case socket(operation: String, endpoint: String, errno: Int32)
    /// The port is taken or cannot be bound.
    case cannotListen(port: UInt16, errno: Int32)
    /// TLS failed (handshake, certificate, or the TLS stream).
    case tls(endpoint: String, TLSError)
    /// The connection was closed (by the peer, or cancelled locally).
    case closed(endpoint: String)
    /// None of a peer's addresses could be reached; one error per address tried.
    case unreachable(attempts: [TransportError])

    public var description: String {
        switch self {
        case .invalidEndpoint(let text):
            "'\(text)' is not a valid address; use HOST:PORT (e.g. 192.168.1.20:47321 or [fe80::1%eth0]:47321)"
        case .hostNotFound(let host, let reason): "cannot resolve '\(host)': \(reason)"
        case .connectionRefused(let endpoint):
            "nobody is receiving at \(endpoint) (connection refused); start 'share receive' there, or check the port"
        case .timedOut(let endpoint, let operation): "\(endpoint) did not answer in time (\(operation))"
        case .socket(let operation, let endpoint, let code): "\(operation) \(endpoint) failed: \(errnoText(code))"
        case .cannotListen(let port, let code):
            code == EADDRINUSE_VALUE
                ? "port \(port) is already in use; stop the other receiver or choose another port with --port (0 picks a free one)"
                : "cannot listen on port \(port): \(errnoText(code))"
        case .tls(let endpoint, let error): "TLS with \(endpoint) failed: \(error)"
        case .closed(let endpoint): "the connection to \(endpoint) was closed"
        case .unreachable(let attempts):
            attempts.isEmpty
                ? "the peer has no address to connect to"
                : "no address of the peer could be reached: " + attempts.map(\.description).joined(separator: "; ")
        }
    }

    /// Whether the peer could not be reached at all (as opposed to a connection that failed later).
    public var isUnreachable: Bool {
        switch self {
        case .hostNotFound, .connectionRefused, .unreachable: true
        case .timedOut(_, let operation): operation.hasPrefix("connect")
        case .socket(let operation, _, _): operation.hasPrefix("connect")
        default: false
        }
    }
}
