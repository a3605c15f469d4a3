public import ShareTLS
public import ShareWire

/// How one incoming connection ended.
public enum IncomingOutcome: Sendable {
    /// The documents were received, verified and committed.
    case received(ReceivedTransfer)
    /// The offer was declined (by the user, the policy, or for lack of space).
    case declined(IncomingOffer, OfferAnswer)
    /// A sender was refused before it could make an offer (blocked, not verified under `trusted`,
    /// busy); it never sent its offer. `claimsNameOf`: the verified peer whose name this other key
    /// claims, if it does.
    case refusedSender(
        peerName: String, peerFingerprint: Fingerprint, peerAddress: String, OfferAnswer, claimsNameOf: TrustStore.Peer?)
    /// The transfer failed; nothing it carried is under a final name. `keptBytes`: what was kept for
    /// the same sender to continue (README: Interrupted transfers); 0 when nothing was kept.
    case failed(peerName: String?, peerFingerprint: Fingerprint?, peerAddress: String, TransferFailure, keptBytes: UInt64)
    /// The connection was refused before a transfer began (TLS failure, too many connections).
    case refused(peerAddress: String, reason: String)
    /// A sender asked to verify identities; `confirmed` when both users confirmed the code (the
    /// sender is now remembered).
    case paired(PairingRequest, confirmed: Bool)
}
