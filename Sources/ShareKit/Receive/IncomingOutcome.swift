public import ShareTLS
public import ShareWire

/// How one incoming connection ended.
public enum IncomingOutcome: Sendable {
    /// The documents were received, verified and committed.
    case received(ReceivedTransfer)
    /// The offer was declined (by the user, the policy, or for lack of space).
    case declined(IncomingOffer, Decision)
    /// The transfer failed; nothing it carried was kept.
    case failed(peerName: String?, peerFingerprint: Fingerprint?, peerAddress: String, TransferFailure)
    /// The connection was refused before a transfer began (TLS failure, too many connections).
    case refused(peerAddress: String, reason: String)
    /// A sender asked to verify identities; `confirmed` when this side's user confirmed the code
    /// (the sender is now remembered).
    case paired(PairingRequest, confirmed: Bool)
    /// A sender presented a different key for a name this machine verified; it was refused.
    case identityChanged(peerName: String, peerFingerprint: Fingerprint, peerAddress: String, knownFingerprint: String)
}
