/// Why a request's body was not read whole.
enum HTTPExchangeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The declared body is longer than the server reads for this request.
    case bodyTooLong(limit: Int)
    /// The peer ended the connection before its declared length arrived.
    case cutShort(received: UInt64)
    /// The peer sent nothing for this long.
    case silent(seconds: Int64)
    /// The whole body did not arrive within the time it was given.
    case tooSlow(seconds: Int64)
    /// The body is not valid HTTP (a bad chunk, say).
    case malformed(String)
    /// The body's reader stopped it.
    case stopped

    var description: String {
        switch self {
        case .bodyTooLong(let limit): "the request's body is longer than the \(limit) bytes this server reads"
        case .cutShort(let received): "the connection ended after \(received) bytes of the body, before all it declared"
        case .silent(let seconds): "the sender sent nothing for \(seconds) s"
        case .tooSlow(let seconds): "the request's body did not arrive within \(seconds) s"
        case .malformed(let reason): reason
        case .stopped: "the body was not taken"
        }
    }
}
