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
    /// The code both sides show on first contact (docs/PROTOCOL.md §10).
    public var verificationCode: String
    /// Whether this machine verified the sender before (its key is pinned).
    public var isVerified: Bool
    /// The team CA that vouches for the sender, when one the user added issued its certificate
    /// (``ReceiverConfiguration/trustAnchors``): such a sender may be accepted without a verification
    /// code. Its identity is still ``peerFingerprint``.
    public var peerTrustedBy: CAInfo? = nil
    /// Why a sender whose certificate leads to a team CA is nevertheless not CA-trusted (e.g. the CA
    /// expired), for messages.
    public var peerCATrustProblem: String? = nil

    /// Whether the users must compare the verification code: neither pinned nor vouched for.
    public var isFirstContact: Bool { !isVerified && peerTrustedBy == nil }
}
