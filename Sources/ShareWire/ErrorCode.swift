/// The code of an ERROR frame (docs/PROTOCOL.md §4).
public enum ErrorCode: UInt16, Sendable, Hashable, CustomStringConvertible {
    case protocolViolation = 1
    case unsupportedVersion = 2
    case invalidOffer = 3
    case limitExceeded = 4
    case hashMismatch = 5
    case sizeMismatch = 6
    case cancelled = 7
    case receiverFailed = 8
    case senderFailed = 9
    case timedOut = 10
    case internalError = 11
    case identityChanged = 12
    case busy = 13

    /// Maps a code from the wire; unknown codes read as ``internalError``.
    public init(wireValue: UInt16) { self = ErrorCode(rawValue: wireValue) ?? .internalError }

    public var description: String {
        switch self {
        case .protocolViolation: "protocol violation"
        case .unsupportedVersion: "unsupported protocol version"
        case .invalidOffer: "invalid offer"
        case .limitExceeded: "limit exceeded"
        case .hashMismatch: "SHA-256 mismatch"
        case .sizeMismatch: "size mismatch"
        case .cancelled: "cancelled"
        case .receiverFailed: "the receiver failed"
        case .senderFailed: "the sender failed"
        case .timedOut: "timed out"
        case .internalError: "internal error"
        case .identityChanged: "the peer's key changed"
        case .busy: "the receiver is busy"
        }
    }
}
