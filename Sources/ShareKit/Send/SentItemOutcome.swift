import ShareWire

/// What became of one sent item on the receiver, as its RECEIPT says.
public enum SentItemOutcome: Sendable, Hashable, CustomStringConvertible {
    /// Placed in the receive folder; the item's text is where.
    case placed
    /// Imported by an application; the item's text is its name.
    case imported
    /// Kept in the receiver's inbox; the item's text is why.
    case keptInInbox

    /// The outcome a RECEIPT gives.
    init(_ outcome: ReceiptOutcome) {
        switch outcome {
        case .placed: self = .placed
        case .imported: self = .imported
        case .keptInInbox: self = .keptInInbox
        }
    }

    /// The name used in JSON output (`placed`, `imported`, `keptInInbox`).
    public var description: String {
        switch self {
        case .placed: ReceiptOutcome.placed.description
        case .imported: ReceiptOutcome.imported.description
        case .keptInInbox: ReceiptOutcome.keptInInbox.description
        }
    }
}
