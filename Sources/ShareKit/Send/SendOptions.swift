public import ShareTLS

/// How a send behaves.
public struct SendOptions: Sendable {
    /// The device name to show the receiver.
    public var deviceName: String
    /// When set, the receiver's fingerprint must start with this (lowercase hex) or nothing is sent.
    public var expectedFingerprintPrefix: String?
    /// Limit for connecting and the TLS handshake.
    public var connectTimeout: Duration = .seconds(10)
    /// How long to wait for the receiver's user to decide.
    public var decisionTimeout: Duration = .seconds(600)
    /// How long the receiver may be silent while data flows or while it commits.
    public var idleTimeout: Duration = .seconds(120)
    /// The config folder whose trust store says which peers are verified (nil: none are, and
    /// nothing is remembered).
    public var configDirectory: String?
    /// Asks the user, on first contact with a peer, whether it shows the same verification code
    /// (nil: no one to ask; the send goes ahead unverified and nothing is remembered).
    public var confirmFirstContact: (@Sendable (FirstContact) -> Bool)?
    /// This side's fingerprint (set by ``Sender`` from the identity; used for verification codes).
    var localFingerprint: Fingerprint?
    /// The team CAs the user added (``TeamCAStore``): a receiver whose certificate one of them issued is
    /// reported as CA-trusted (``SendReport/peerTrustedBy``). A CA never overrides
    /// ``expectedFingerprintPrefix``.
    public var trustAnchors: TrustAnchors = .none
    /// Test hook: send a wrong SHA-256 for this file index (to prove the receiver checks).
    package var corruptDigestOfFile: Int?

    /// Creates options.
    public init(deviceName: String, expectedFingerprintPrefix: String? = nil) {
        self.deviceName = deviceName
        self.expectedFingerprintPrefix = expectedFingerprintPrefix
    }
}
