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
    /// A HELLO with the wrong magic (`peerVersion` nil) or a version this side does not speak.
    case unsupportedVersion(peerVersion: UInt8?)
    /// An offer that breaks a rule of docs/PROTOCOL.md §4.
    case invalidOffer(ManifestError)
    /// A well-formed frame that is not allowed now.
    case unexpectedFrame(FrameType, expected: String)
    /// A file whose DATA exceeds, or FILE_END falls short of, its offered size.
    case sizeMismatch(path: String, offered: UInt64, received: UInt64)

    /// The ERROR to send the peer: the code and this description (for a version refusal, the same
    /// facts told from the peer's side: `role` is this side's role).
    public func peerError(from role: String) -> PeerError {
        if case .unsupportedVersion(let version?) = self {
            let other = role == "receiver" ? "sender" : "receiver"
            let update = version < Hello.currentVersion ? "update share on the \(other)" : "update share on the \(role)"
            return PeerError(
                .unsupportedVersion,
                "this \(role) speaks share protocol \(Hello.currentVersion) and the \(other) speaks protocol \(version): \(update)")
        }
        return PeerError(errorCode, description)
    }

    /// The code to send to the peer in an ERROR frame.
    public var errorCode: ErrorCode {
        switch self {
        case .unknownFrameType, .malformed, .truncated, .unexpectedFrame: .protocolViolation
        case .frameTooLarge: .limitExceeded
        case .unsupportedVersion: .unsupportedVersion
        case .invalidOffer(let problem):
            switch problem {
            case .tooManyEntries, .tooManyItems, .tooLarge, .offerTooLarge: .limitExceeded
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
        case .unsupportedVersion(let version?) where version < Hello.currentVersion:
            "the peer runs an older share (protocol \(version)) and this one speaks protocol \(Hello.currentVersion): "
                + "update share there"
        case .unsupportedVersion(let version?):
            "the peer runs a newer share (protocol \(version)) and this one speaks protocol \(Hello.currentVersion): "
                + "update share here"
        case .unsupportedVersion(nil): "the peer does not speak the share protocol"
        case .invalidOffer(let problem): "the offer was refused: \(problem)"
        case .unexpectedFrame(let type, let expected): "the peer sent \(type) where \(expected) was expected"
        case .sizeMismatch(let path, let offered, let received):
            "'\(DisplayText.escape(path))' was offered as \(offered) bytes but \(received) bytes arrived"
        }
    }
}
