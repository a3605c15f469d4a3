public import ShareDocuments

/// A frame or a sequence of frames that breaks the protocol.
///
/// Each case maps to the ``ErrorCode`` sent to the peer, and its description is written for the
/// local user.
public enum WireError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A type byte this version does not know.
    case unknownFrameType(UInt8)
    /// A header that declares more payload than its type allows.
    case frameTooLarge(FrameType, length: Int, limit: Int)
    /// A payload that does not parse.
    case malformed(FrameType, String)
    /// The connection ended in the middle of a frame.
    case truncated(bufferedBytes: Int)
    /// A HELLO with the wrong magic or an unknown version.
    case unsupportedVersion(String)
    /// An offer that breaks a rule of docs/PROTOCOL.md §4.
    case invalidOffer(ManifestError)
    /// A well-formed frame that is not allowed now.
    case unexpectedFrame(FrameType, expected: String)
    /// A file whose DATA exceeds, or FILE_END falls short of, its offered size.
    case sizeMismatch(path: String, offered: UInt64, received: UInt64)

    /// The ERROR to send the peer: the code and this description.
    public var peerError: PeerError { PeerError(errorCode, description) }

    /// The code to send to the peer in an ERROR frame.
    public var errorCode: ErrorCode {
        switch self {
        case .unknownFrameType, .malformed, .truncated, .unexpectedFrame: .protocolViolation
        case .frameTooLarge: .limitExceeded
        case .unsupportedVersion: .unsupportedVersion
        case .invalidOffer(let problem):
            switch problem {
            case .tooManyEntries, .tooManyItems, .tooLarge: .limitExceeded
            default: .invalidOffer
            }
        case .sizeMismatch: .sizeMismatch
        }
    }

    public var description: String {
        switch self {
        case .unknownFrameType(let type): "the peer sent a frame of unknown type 0x\(String(type, radix: 16))"
        case .frameTooLarge(let type, let length, let limit):
            "the peer sent a \(type) frame of \(length) bytes (the limit is \(limit))"
        case .malformed(let type, let reason): "the peer sent a malformed \(type) frame: \(reason)"
        case .truncated(let count): "the connection ended in the middle of a frame (\(count) bytes left over)"
        case .unsupportedVersion(let detail): "the peer speaks an unsupported protocol: \(detail)"
        case .invalidOffer(let problem): "the offer was refused: \(problem)"
        case .unexpectedFrame(let type, let expected): "the peer sent \(type) where \(expected) was expected"
        case .sizeMismatch(let path, let offered, let received):
            "'\(DisplayText.escape(path))' was offered as \(offered) bytes but \(received) bytes arrived"
        }
    }
}
