import ShareDocuments

/// ERROR: a code and a sentence for the other side's user.
public struct PeerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure.
    public var code: ErrorCode
    /// The peer's explanation (escape it before printing: it comes from the network).
    public var message: String

    /// Creates an error message.
    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Clips `message` so the ERROR frame fits its limit.
    public var clipped: PeerError {
        var text = Substring(message)
        while text.utf8.count > 4_000 { text = text.dropLast() }
        return PeerError(code, String(text))
    }

    public var description: String { message.isEmpty ? code.description : DisplayText.escape(message) }
}
