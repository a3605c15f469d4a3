/// The receiver's answer to an offer (docs/PROTOCOL.md §4, DECISION).
public enum DecisionCode: UInt8, Sendable, Hashable, CustomStringConvertible {
    case accepted = 0
    case declinedByUser = 1
    case nobodyToAsk = 2
    case insufficientSpace = 3
    case refusedByPolicy = 4
    case busy = 5
    case noAnswer = 6
    case cannotStore = 7

    /// The name used in JSON output and docs/JSON.md.
    public var name: String {
        switch self {
        case .accepted: "accepted"
        case .declinedByUser: "declined"
        case .nobodyToAsk: "nobodyToAsk"
        case .insufficientSpace: "insufficientSpace"
        case .refusedByPolicy: "refusedByPolicy"
        case .busy: "busy"
        case .noAnswer: "noAnswer"
        case .cannotStore: "cannotStore"
        }
    }

    public var description: String {
        switch self {
        case .accepted: "accepted"
        case .declinedByUser: "its user declined"
        case .nobodyToAsk: "it has nobody to ask (no terminal or notification to ask its user on)"
        case .insufficientSpace: "it does not have enough free space"
        case .refusedByPolicy: "its policy refuses this sender"
        case .busy: "it is busy"
        case .noAnswer: "its user did not answer in time"
        case .cannotStore: "its folder cannot store the offer as it is"
        }
    }
}
