public import ShareTLS

/// A sender asking to verify identities (PAIR): both users compare the verification code.
public struct PairingRequest: Sendable {
    /// The sender's device name, as it calls itself (escape before printing).
    public var peerName: String
    /// The sender's fingerprint.
    public var peerFingerprint: Fingerprint
    /// The sender's address.
    public var peerAddress: String
    /// The code both sides show (docs/PROTOCOL.md §14).
    public var verificationCode: String
    /// The name this machine verified the sender under, when it is verified already.
    public var pinnedName: String?
    /// A verified peer whose name this (unverified) sender claims.
    public var claimsNameOf: TrustStore.Peer? = nil
}
