/// The receiver's answer to an offer (docs/PROTOCOL.md §4, DECISION).
public enum DecisionCode: UInt8, Sendable, Hashable, CustomStringConvertible {
    case accepted = 0
    case declinedByUser = 1
    case nobodyToAsk = 2
    case insufficientSpace = 3
    case refusedByPolicy = 4
    case busy = 5

    public var description: String {
        switch self {
        case .accepted: "accepted"
        case .declinedByUser: "its user said no"
        case .nobodyToAsk: "it has no terminal to ask its user on"
        case .insufficientSpace: "it does not have enough free space"
        case .refusedByPolicy: "its policy refuses this sender"
        case .busy: "it is busy"
        }
    }
}
