/// A receiver's answer to an offer or a pairing request: accepted, or why not, with a sentence for
/// the sender's user.
public struct OfferAnswer: Sendable, Hashable {
    /// Accepted, or why not.
    public var code: OfferAnswerCode
    /// A sentence for the sender's user; may be empty (the code then says why).
    public var message: String

    /// Creates an answer.
    public init(_ code: OfferAnswerCode, message: String = "") {
        self.code = code
        self.message = message
    }

    /// Whether the transfer (or the pairing) goes ahead.
    public var isAccepted: Bool { code == .accepted }

    /// An accepting answer.
    public static let accept = OfferAnswer(.accepted)
}
