/// DECISION: whether the receiver takes the offer, with a sentence for the sender's user.
public struct Decision: Sendable, Hashable {
    /// Accepted, or why not.
    public var code: DecisionCode
    /// A sentence for the sender's user; may be empty when accepted.
    public var message: String
    /// With an accepting decision: how many HAVE records follow (docs/PROTOCOL.md §7).
    public var haveCount: UInt32

    /// Creates a decision.
    public init(_ code: DecisionCode, message: String = "", haveCount: UInt32 = 0) {
        self.code = code
        self.message = message
        self.haveCount = haveCount
    }

    /// Whether the transfer goes ahead.
    public var isAccepted: Bool { code == .accepted }

    /// An accepting decision.
    public static let accept = Decision(.accepted)
}
