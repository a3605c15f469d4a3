/// Why a LocalSend message was not accepted.
public enum LocalSendMessageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// It is longer than share reads.
    case tooLong(bytes: Int, limit: Int)
    /// It is not a JSON object.
    case notJSON
    /// A field that must be there is missing.
    case missingField(String)
    /// A field has the wrong type or is out of bounds.
    case invalidField(String, String)

    public var description: String {
        switch self {
        case .tooLong(let bytes, let limit): "the message has \(bytes) bytes, more than the \(limit) share reads"
        case .notJSON: "the message is not a JSON object"
        case .missingField(let field): "the message has no '\(field)'"
        case .invalidField(let field, let problem): "the message's '\(field)' is invalid: \(problem)"
        }
    }
}
