public import ShareTLS

/// A peer this machine has not verified, met for the first time: the users compare the code.
public struct FirstContact: Sendable {
    /// The peer's device name (escape before printing).
    public var peerName: String
    /// The peer's fingerprint.
    public var peerFingerprint: Fingerprint
    /// The code both sides show (docs/PROTOCOL.md §10).
    public var verificationCode: String
}
