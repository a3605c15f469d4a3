import ShareWire

/// Why a receiver took an offer or a pairing request, or why not: the codes its DECISION carries
/// (docs/PROTOCOL.md §4), in the words of `share receive --json` (docs/JSON.md) and of its messages.
public enum OfferAnswerCode: Sendable, Hashable, CustomStringConvertible {
    /// Accepted.
    case accepted
    /// Its user declined.
    case declinedByUser
    /// Nobody could be asked (no terminal or notification to ask its user on).
    case nobodyToAsk
    /// Not enough free space.
    case insufficientSpace
    /// Its policy refuses this sender.
    case refusedByPolicy
    /// It is busy.
    case busy
    /// Its user did not answer in time.
    case noAnswer
    /// Its folder cannot store the offer as it is.
    case cannotStore

    /// The name used in JSON output and docs/JSON.md.
    public var name: String { DecisionCode(self).name }

    /// What the code means, as a sentence about the receiver.
    public var description: String { DecisionCode(self).description }
}
