public import ShareTLS

/// How a send behaves.
public struct SendOptions: Sendable {
    /// The device name to show the receiver.
    public var deviceName: String
    /// The key the receiver must present, or nothing is sent (nil: any key; it is judged by the
    /// trust store alone, as for `HOST:PORT`).
    public var expectedKey: ExpectedKey?
    /// Limit for connecting, the TLS handshake and the receiver's HELLO.
    public var connectTimeout: Duration = .seconds(10)
    /// How long to wait for the decision of a receiver whose user decides (a person may take a while).
    public var decisionTimeout: Duration = .seconds(330)
    /// How long to wait for the decision of a receiver that decides without asking anyone.
    public var unattendedDecisionTimeout: Duration = .seconds(60)
    /// How long the receiver may take no data before the send counts as stalled.
    public var idleTimeout: Duration = .seconds(30)
    /// How long to wait for the receipt after the last file (the receiver commits, then waits up to
    /// a minute for imports).
    public var receiptTimeout: Duration = .seconds(120)
    /// The config folder whose trust store says which peers are verified (nil: none are, and
    /// nothing is remembered).
    public var configDirectory: String?
    /// The person at this side's terminal (nil: the send is unattended; nothing is compared or pinned).
    public var interaction: SendInteraction?
    /// The team CAs the user added (``TeamCAStore``): a receiver whose certificate one of them issued is
    /// reported as CA-trusted (``SendReport/peerTrustedBy``). A CA never overrides ``expectedKey``.
    public var trustAnchors: TrustAnchors = .none
    /// The most bytes per second to send (`--limit-rate`); nil: as fast as the network allows.
    public var rateLimit: UInt64?
    /// How DATA is compressed (docs/PROTOCOL.md §8); ``CompressionSettings/off`` (`--no-compress`)
    /// offers no ZSTD and sends every byte raw.
    public var compression = CompressionSettings()
    /// Which files are already compressed as far as the sender's type registry knows: no zstd is
    /// tried on them (nil: every file is sampled).
    public var compressedTypes: CompressedTypes?
    /// Cancels the send from another thread (Ctrl-C): the receiver is told, nothing more is sent.
    public var cancellation: SendCancellation?
    /// Whether and how long to try again when the connection fails on the way (nil: never).
    public var retry: RetryPolicy?
    /// Told before each new attempt (on the sending thread).
    public var onReconnect: (@Sendable (Reconnection) -> Void)?
    /// Told when the receiver answers HELLO (on the sending thread): who it is, proven by TLS, so
    /// that a send that does not complete can still say whom it reached.
    public var onGreeted: (@Sendable (GreetedReceiver) -> Void)?
    /// Told when the receiver already holds part of the offer, before the rest is sent.
    public var onResume: (@Sendable (Resumption) -> Void)?
    /// Reads and hashes the files once for all the destinations of one send that share it
    /// (`share send --to a --to b`); nil: this send reads its files alone.
    public var sharedSource: SharedSource?
    /// Set when the receiver accepts (so a retry knows the receiver took the offer once).
    var acceptance: AcceptanceFlag?
    /// This side's fingerprint (set by ``Sender`` from the identity; used for verification codes).
    var localFingerprint: Fingerprint?
    /// Test hook: send a wrong SHA-256 for this file index (to prove the receiver checks).
    package var corruptDigestOfFile: Int?
    /// Test hook: cut the connection (as a network failure would) once this many content bytes were
    /// sent on it.
    package var cutConnectionAfterBytes: UInt64?

    /// Creates options.
    public init(deviceName: String, expectedKey: ExpectedKey? = nil) {
        self.deviceName = deviceName
        self.expectedKey = expectedKey
    }
}

/// The key a receiver must present.
public enum ExpectedKey: Sendable, Hashable {
    /// The fingerprint prefix it advertised in DNS-SD (lowercase hex), under `name`.
    case advertised(prefix: String, name: String)
    /// The full fingerprint of a peer the user verified under `name` and addressed by that name or
    /// by its fingerprint.
    case verified(fingerprint: String, name: String)

    /// Whether `fingerprint` is the expected key.
    public func matches(_ fingerprint: Fingerprint) -> Bool {
        switch self {
        case .advertised(let prefix, _): fingerprint.matches(prefix: prefix)
        case .verified(let expected, _): fingerprint.hex == expected
        }
    }
}
