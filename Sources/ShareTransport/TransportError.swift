public import ShareTLS
import ShareSystem

#if canImport(Glibc)
    import Glibc
#endif

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
    /// The peer closed the connection before the TLS handshake finished (a receiver that is busy
    /// drops connections that way, or one that refuses this address).
    case closedDuringHandshake(endpoint: String)
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
        case .socket(let operation, let endpoint, let code): "\(operation) \(endpoint) failed: \(Errno(code).description)"
        case .cannotListen(let port, let code):
            code == EADDRINUSE
                ? "port \(port) is already in use; stop the other receiver or choose another port with --port (0 picks a free one)"
                : "cannot listen on port \(port): \(Errno(code).description)"
        case .tls(let endpoint, let error): "TLS with \(endpoint) failed: \(error)"
        case .closed(let endpoint): "the connection to \(endpoint) was closed"
        case .closedDuringHandshake(let endpoint):
            "\(endpoint) closed the connection before the TLS handshake finished: the receiver may be busy with "
                + "other connections, or refusing this machine; try again in a moment"
        case .unreachable(let attempts): Self.describe(attempts)
        }
    }

    /// Several addresses of one peer that failed, said once: `nobody is receiving at A or B
    /// (connection refused); start ...`, or each address with what went wrong and the advice once.
    static func describe(_ attempts: [TransportError]) -> String {
        if attempts.isEmpty { return "the peer has no address to connect to" }
        var refused: [String] = []
        var others: [String] = []
        for attempt in attempts {
            if case .connectionRefused(let endpoint) = attempt { refused.append(endpoint) } else { others.append(attempt.description) }
        }
        func list(_ items: [String]) -> String {
            items.count <= 1 ? items.joined() : items.dropLast().joined(separator: ", ") + " or " + items.last!
        }
        let advice = "start 'share receive' there, or check the port"
        if others.isEmpty { return "nobody is receiving at \(list(refused)) (connection refused); \(advice)" }
        var parts = others
        if !refused.isEmpty { parts.append("\(list(refused)) refused the connection") }
        return "no address of the peer could be reached: " + parts.joined(separator: "; ") + (refused.isEmpty ? "" : "; \(advice)")
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
