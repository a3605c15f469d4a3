public import ShareDocuments
public import ShareTLS

/// An offer waiting for the receiver's decision.
public struct IncomingOffer: Sendable {
    /// The sender's device name, as it sent it (escape before printing).
    public var peerName: String
    /// The sender's fingerprint (its identity, verified by TLS).
    public var peerFingerprint: Fingerprint
    /// The sender's address.
    public var peerAddress: String
    /// What it offers.
    public var manifest: Manifest
}
