public import ShareTLS

/// The outcome of `share trust verify`.
public struct PairingResult: Sendable {
    /// The receiver's name as it calls itself.
    public var name: String
    /// Its fingerprint.
    public var fingerprint: Fingerprint
    /// Where it was reached.
    public var endpoint: String
    /// Its pin before this verification, if it was verified already.
    public var verifiedBefore: TrustStore.Peer?
}
