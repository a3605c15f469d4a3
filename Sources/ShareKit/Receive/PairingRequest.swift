public import ShareTLS

/// A sender asking to verify identities (PAIR): both users compare the verification code.
public struct PairingRequest: Sendable {
    /// The sender's device name, as it sent it (escape before printing).
    public var peerName: String
    /// The sender's fingerprint.
    public var peerFingerprint: Fingerprint
    /// The sender's address.
    public var peerAddress: String
    /// The code both sides show (docs/PROTOCOL.md §10).
    public var verificationCode: String
}
