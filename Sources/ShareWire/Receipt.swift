/// RECEIPT: where each item landed on the receiver, in offer order.
public struct Receipt: Sendable, Hashable {
    /// One display location per item (e.g. `~/Downloads/Report (2).pdf`).
    public var locations: [String]

    /// Creates a receipt.
    public init(locations: [String]) { self.locations = locations }
}
