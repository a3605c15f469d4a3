public import ShareWire

/// What a receiver tells its user interface, and asks it.
///
/// Every closure is called on a connection's own thread (several transfers may run at once).
/// `decide` and `pair` may block while a person answers; they must return promptly once their
/// ``PromptTicket`` is withdrawn (the sender gave up, or the receiver is stopping).
public struct ReceiverEvents: Sendable {
    /// Whether a person can be asked now (a terminal, a notification): the receiver says so in its
    /// HELLO, and shows a verification code only then.
    public var canAsk: @Sendable () -> Bool
    /// Decides on an offer under the `ask` policy (other policies decide without asking).
    public var decide: @Sendable (IncomingOffer, PromptTicket) -> Decision
    /// Answers a pairing request: accepted when the user confirmed that the codes match.
    public var pair: @Sendable (PairingRequest, PromptTicket) -> Decision
    /// Progress of an accepted transfer (at most ten times a second).
    public var progress: @Sendable (IncomingOffer, TransferProgress) -> Void
    /// The end of a connection.
    public var finished: @Sendable (IncomingOutcome) -> Void

    /// Creates the callbacks.
    public init(
        canAsk: @escaping @Sendable () -> Bool = { false },
        decide: @escaping @Sendable (IncomingOffer, PromptTicket) -> Decision = { _, _ in
            Decision(.nobodyToAsk, message: "the receiver has nobody to ask")
        },
        pair: @escaping @Sendable (PairingRequest, PromptTicket) -> Decision = { _, _ in
            Decision(.nobodyToAsk, message: "the receiver cannot confirm a verification code unattended")
        },
        progress: @escaping @Sendable (IncomingOffer, TransferProgress) -> Void = { _, _ in },
        finished: @escaping @Sendable (IncomingOutcome) -> Void = { _ in }
    ) {
        self.canAsk = canAsk
        self.decide = decide
        self.pair = pair
        self.progress = progress
        self.finished = finished
    }
}
