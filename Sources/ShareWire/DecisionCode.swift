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
        case .declinedByUser: "declined by the receiver's user"
        case .nobodyToAsk: "declined: the receiver has no terminal to ask on"
        case .insufficientSpace: "declined: not enough free space on the receiver"
        case .refusedByPolicy: "refused by the receiver's policy"
        case .busy: "declined: the receiver is busy"
        }
    }
}
