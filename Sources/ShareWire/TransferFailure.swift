import ShareDocuments

/// Why a transfer did not complete, as either side reports it to its user.
public enum TransferFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// This side found a problem, told the peer with ERROR and stopped.
    case local(PeerError)
    /// The peer sent ERROR.
    case remote(PeerError)
    /// The peer broke the protocol (this side sent ERROR and stopped), or refused this side's
    /// protocol version (a version 1 receiver, docs/PROTOCOL.md §12).
    case protocolViolation(WireError)
    /// The connection ended before the transfer did.
    case connectionLost(during: String)

    public var description: String {
        switch self {
        case .local(let error): error.description
        case .remote(let error): "the peer reported: \(error)"
        case .protocolViolation(let error): error.description
        case .connectionLost(let during): "the connection was lost \(during)"
        }
    }

    /// The ERROR code behind the failure, when there is one.
    public var code: ErrorCode? {
        switch self {
        case .local(let error), .remote(let error): error.code
        case .protocolViolation(let error): error.errorCode
        case .connectionLost: nil
        }
    }
}
