public import ShareTLS

/// How a receiver listens and where it stores what it accepts.
public struct ReceiverConfiguration: Sendable {
    /// The default TCP port of share (docs/PROTOCOL.md §1).
    public static let defaultPort: UInt16 = 47321

    /// TCP port to listen on; 0 picks a free one.
    public var port: UInt16
    /// The receive folder (created when missing).
    public var destination: String
    /// The device name shown to senders.
    public var deviceName: String
    /// Limit for the TLS handshake and the sender's HELLO and OFFER.
    public var handshakeTimeout: Duration = .seconds(10)
    /// How long a sender may be silent while data flows.
    public var idleTimeout: Duration = .seconds(60)
    /// Transfers handled at once; more connections are closed at once.
    public var maxConcurrentTransfers = 16
    /// Free space kept beyond an offer's size; an offer that would eat into it is declined.
    public var freeSpaceMargin: UInt64 = 64 << 20
    /// The team CAs the user added (``TeamCAStore``): a sender whose certificate one of them issued is
    /// reported as CA-trusted (``IncomingOffer/peerTrustedBy``).
    public var trustAnchors: TrustAnchors = .none
    /// Asked, for each sender a team CA vouched for, whether that CA is still trusted (the user may
    /// have removed it since the receiver started); a CA it answers `false` for vouches for no one.
    /// `nil`: ``trustAnchors`` stand as given.
    public var isStillTrusted: (@Sendable (CAInfo) -> Bool)?

    /// Creates a configuration.
    public init(port: UInt16 = ReceiverConfiguration.defaultPort, destination: String, deviceName: String) {
        self.port = port
        self.destination = destination
        self.deviceName = deviceName
    }
}
