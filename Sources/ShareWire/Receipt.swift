/// RECEIPT: what became of each item on the receiver, in offer order.
public struct Receipt: Sendable, Hashable {
    /// One outcome per item.
    public var items: [ReceiptItem]

    /// Creates a receipt.
    public init(items: [ReceiptItem]) { self.items = items }
}

/// What became of one item (docs/PROTOCOL.md §4, RECEIPT).
public struct ReceiptItem: Sendable, Hashable {
    /// Placed, imported, or kept in the inbox.
    public var outcome: ReceiptOutcome
    /// Where it landed (placed), the application that imported it (imported), or why it stayed in
    /// the inbox (keptInInbox); display text from the receiver (escape before printing).
    public var text: String

    /// Creates an item outcome.
    public init(_ outcome: ReceiptOutcome, _ text: String) {
        self.outcome = outcome
        self.text = text
    }
}

/// The outcome of one item in a RECEIPT.
public enum ReceiptOutcome: UInt8, Sendable, Hashable, CustomStringConvertible {
    /// Placed in the receive folder; the text is where.
    case placed = 1
    /// Imported by an application; the text is its name.
    case imported = 2
    /// Kept in the receiver's inbox; the text is why.
    case keptInInbox = 3

    /// Maps a code from the wire; unknown codes read as ``keptInInbox``.
    public init(wireValue: UInt8) { self = ReceiptOutcome(rawValue: wireValue) ?? .keptInInbox }

    /// The name used in JSON output (`placed`, `imported`, `keptInInbox`).
    public var description: String {
        switch self {
        case .placed: "placed"
        case .imported: "imported"
        case .keptInInbox: "keptInInbox"
        }
    }
}
