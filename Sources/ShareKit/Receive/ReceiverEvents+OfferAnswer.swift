import ShareWire

extension ReceiverEvents {
    /// Creates the callbacks of a user interface that answers with ``OfferAnswer``s: `decide`
    /// answers an offer under the `ask` policy, `pair` a pairing request (accepted when the user
    /// confirmed that the codes match). The receiver sends each answer as its DECISION.
    public init(
        canAsk: @escaping @Sendable () -> Bool = { false },
        decide: @escaping @Sendable (IncomingOffer, PromptTicket) -> OfferAnswer,
        pair: @escaping @Sendable (PairingRequest, PromptTicket) -> OfferAnswer,
        progress: @escaping @Sendable (IncomingOffer, TransferProgress) -> Void = { _, _ in },
        finished: @escaping @Sendable (IncomingOutcome) -> Void = { _ in }
    ) {
        self.init(
            canAsk: canAsk, decide: { Decision(decide($0, $1)) }, pair: { Decision(pair($0, $1)) }, progress: progress,
            finished: finished)
    }
}
