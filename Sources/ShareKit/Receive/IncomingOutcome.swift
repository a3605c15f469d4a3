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
}
