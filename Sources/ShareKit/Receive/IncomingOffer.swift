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
    /// The team CA that vouches for the sender, when one the user added issued its certificate
    /// (``ReceiverConfiguration/trustAnchors``): such a sender may be accepted without a verification
    /// code. Its identity is still ``peerFingerprint``.
    public var peerTrustedBy: CAInfo? = nil
    /// Why a sender whose certificate leads to a team CA is nevertheless not CA-trusted (e.g. the CA
    /// expired), for messages.
    public var peerCATrustProblem: String? = nil
}
