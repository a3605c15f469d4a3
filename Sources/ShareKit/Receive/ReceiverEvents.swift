public import ShareWire

/// What a receiver tells its user interface.
///
/// Every closure is called on the connection's own thread (several transfers may run at once).
/// `decide` may block, e.g. while the user answers a prompt.
public struct ReceiverEvents: Sendable {
    /// Decides on an offer under the `ask` policy (other policies decide without asking).
    public var decide: @Sendable (IncomingOffer) -> Decision
    /// Answers a pairing request: accepted when the user confirmed that the codes match.
    public var pair: @Sendable (PairingRequest) -> Decision
    /// Progress of an accepted transfer (at most ten times a second).
    public var progress: @Sendable (IncomingOffer, TransferProgress) -> Void
    /// The end of a connection.
    public var finished: @Sendable (IncomingOutcome) -> Void

    /// Creates the callbacks.
    public init(
        decide: @escaping @Sendable (IncomingOffer) -> Decision,
        pair: @escaping @Sendable (PairingRequest) -> Decision = { _ in
            Decision(.nobodyToAsk, message: "the receiver cannot confirm a verification code unattended")
        },
        progress: @escaping @Sendable (IncomingOffer, TransferProgress) -> Void = { _, _ in },
        finished: @escaping @Sendable (IncomingOutcome) -> Void = { _ in }
    ) {
        self.decide = decide
        self.pair = pair
        self.progress = progress
        self.finished = finished
    }
}
