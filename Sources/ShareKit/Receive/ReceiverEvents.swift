public import ShareWire

/// What a receiver tells its user interface.
///
/// Every closure is called on the connection's own thread (several transfers may run at once).
/// `decide` may block, e.g. while the user answers a prompt.
public struct ReceiverEvents: Sendable {
    /// Decides on an offer.
    public var decide: @Sendable (IncomingOffer) -> Decision
    /// Progress of an accepted transfer (at most ten times a second).
    public var progress: @Sendable (IncomingOffer, TransferProgress) -> Void
    /// The end of a connection.
    public var finished: @Sendable (IncomingOutcome) -> Void

    /// Creates the callbacks.
    public init(
        decide: @escaping @Sendable (IncomingOffer) -> Decision,
        progress: @escaping @Sendable (IncomingOffer, TransferProgress) -> Void = { _, _ in },
        finished: @escaping @Sendable (IncomingOutcome) -> Void = { _ in }
    ) {
        self.decide = decide
        self.progress = progress
        self.finished = finished
    }
}
