public import ShareTLS

/// How a send involves the person at this side's terminal. A send without one is unattended:
/// nothing is compared and nothing is pinned.
public struct SendInteraction: Sendable {
    /// Asks the user whether the receiver shows the same verification code, on a thread of its own;
    /// returns the answer, or anything once `ticket` is withdrawn (the answer is then ignored).
    public var compareCode: @Sendable (CodeComparison, PromptTicket) -> Bool
    /// The receiver has the offer: tells the user whom the send waits for.
    public var waiting: @Sendable (WaitingForReceiver) -> Void

    /// Creates the callbacks.
    public init(
        compareCode: @escaping @Sendable (CodeComparison, PromptTicket) -> Bool,
        waiting: @escaping @Sendable (WaitingForReceiver) -> Void = { _ in }
    ) {
        self.compareCode = compareCode
        self.waiting = waiting
    }
}

/// The verification code both users compare (docs/PROTOCOL.md §6, §14).
public struct CodeComparison: Sendable {
    /// The receiver's name as it calls itself (escape before printing).
    public var peerName: String
    /// The name it was verified under here, when it is verified.
    public var pinnedName: String?
    /// The receiver's fingerprint.
    public var peerFingerprint: Fingerprint
    /// The code.
    public var verificationCode: String
    /// Whether this is `share trust verify` (nothing is sent either way).
    public var isPairing: Bool
}

/// What the send is waiting for once the receiver has the offer.
public struct WaitingForReceiver: Sendable {
    /// The receiver's name as it calls itself (escape before printing).
    public var peerName: String
    /// Whether a person there decides (otherwise its policy does, at once).
    public var receiverAsksItsUser: Bool
}
