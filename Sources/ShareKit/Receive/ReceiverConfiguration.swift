import Foundation
public import ShareDocuments
public import ShareTLS

/// How a receiver listens and where it stores what it accepts.
public struct ReceiverConfiguration: Sendable {
    /// The default TCP port of share (docs/PROTOCOL.md §1).
    public static let defaultPort: UInt16 = 47321

    /// TCP port to listen on; 0 picks a free one.
    public var port: UInt16
    /// The receive folder (created when missing): documents no application imports are placed here.
    public var destination: String
    /// The receive folder opened when the receiver started (``Receiver`` opens it); documents are
    /// placed through it.
    public var receiveFolder: ReceiveFolder?
    /// The inbox: transfers are staged in it, and documents wait in it until imported (see ``Inbox``).
    public var inbox: String
    /// The type registry that decides each document's type and importer.
    public var registry: RegistryProvider
    /// The environment importers get `PATH`, `HOME`, the locale and `XDG_*` from.
    public var importEnvironment: [String: String]
    /// How long the receipt waits for imports before it goes out anyway (the sender waits at most
    /// two minutes for it); imports still running go on and are reported when they end.
    public var receiptWait: Duration = .seconds(60)
    /// The device name shown to senders.
    public var deviceName: String
    /// Limit for the TLS handshake and the sender's HELLO and OFFER.
    public var handshakeTimeout: Duration = .seconds(10)
    /// The hard limit from accepting a connection until its offer's first frame (or its pairing
    /// request) has arrived, however the bytes trickle in: a slow peer cannot hold a connection slot.
    /// The rest of the offer (its ENTRIES) must then keep up ``minimumRate``, as data does.
    public var offerDeadline: Duration = .seconds(30)
    /// How long a sender may be silent while data flows.
    public var idleTimeout: Duration = .seconds(60)
    /// While data flows, the least a sender must send on average over each ``rateWindow``: slower is
    /// a peer dripping bytes to hold a connection (honest Wi-Fi, even a poor one, is far faster).
    public var minimumRate: UInt64 = 4 << 10
    /// The window over which ``minimumRate`` is measured.
    public var rateWindow: Duration = .seconds(60)
    /// How long a person may take to answer (this side's user about an offer, the sender's user
    /// about the verification code).
    public var promptTimeout: Duration = .seconds(300)
    /// Transfers (connections that made their offer) at once; a sender beyond them is told the
    /// receiver is busy, at its HELLO (docs/SECURITY.md, "Admission").
    public var maxConcurrentTransfers = 16
    /// The bytes of received content all transfers together may hold in memory on their way to the
    /// disk (shared by every receiver made with this configuration).
    public var writerQueueBudget = WriterQueueBudget()
    /// Transfers beyond ``maxConcurrentTransfers`` for senders verified here or by a team CA only.
    public var reservedTransfers = 4
    /// Connections at once that have not made their offer yet; when they are all held, the oldest of
    /// the source holding the most is dropped for a new one.
    public var maxPendingConnections = 128
    /// The most free space kept beyond an offer's size (less on a small disk: ``FreeSpace``); an offer
    /// that would eat into it is declined.
    public var freeSpaceMargin: UInt64 = 64 << 20
    /// The most bytes per second to receive (`--limit-rate`); nil: as fast as the sender sends.
    public var rateLimit: UInt64?
    /// Connections without an offer yet from one source (an IPv4 address, an IPv6 /64) at once; its
    /// oldest is dropped for a new one.
    public var maxConnectionsPerAddress = 4
    /// Where the trust store is (the config folder); nil: nobody is verified and nothing is remembered.
    public var configDirectory: String?
    /// How long a transfer that did not complete is kept for its sender to continue (docs/PROTOCOL.md
    /// §7), after data last arrived.
    public var partialKeep: Duration = PartialStore.defaultKeep
    /// The share of the inbox filesystem's size kept transfers may hold together.
    public var partialShare: Double = PartialStore.defaultShare
    /// The kept transfers of ``inbox``, with ``partialKeep`` and ``partialShare``.
    public var partials: PartialStore { PartialStore(inbox: inbox, keep: partialKeep, share: partialShare) }
    /// Whether this receiver announces ZSTD in its HELLO, so senders may compress DATA
    /// (docs/PROTOCOL.md §8); each chunk is decompressed into at most its announced length.
    public var decodesZstd = true
    /// Whom to accept from.
    public var policy: ReceivePolicy = .ask
    /// Whether received files keep execute bits (only inside bundles, when asked for).
    public var executableBits: ExecutableBits = .removed
    /// The umask applied to every received mode (the process's own, read when the configuration is made).
    public var umask: UInt16 = ReceiverConfiguration.processUmask
    /// With ``policy`` `everyone`: when everyone mode ends and ``fallbackPolicy`` applies (nil: never).
    public var everyoneUntil: ContinuousClock.Instant?
    /// The policy after everyone mode ends.
    public var fallbackPolicy: ReceivePolicy = .ask
    /// Prompts one peer not verified here (by key or by address) may cause per minute under `ask`.
    public var promptsPerMinute = 3
    /// Prompts one verified peer (pinned here, or vouched for by a team CA) may cause per minute
    /// under `ask`, counted on its key only: ordinary use, never a stranger's flood.
    public var verifiedPromptsPerMinute = 30
    /// The team CAs the user added (``TeamCAStore``): a sender whose certificate one of them issued is
    /// reported as CA-trusted (``IncomingOffer/peerTrustedBy``).
    public var trustAnchors: TrustAnchors = .none
    /// Asked, for each sender a team CA vouched for, whether that CA is still trusted (the user may
    /// have removed it since the receiver started); a CA it answers `false` for vouches for no one.
    /// `nil`: ``trustAnchors`` stand as given.
    public var isStillTrusted: (@Sendable (CAInfo) -> Bool)?

    /// The process's umask (read once, when first needed; it is only set back at once).
    public static let processUmask: UInt16 = {
        let mask = Foundation.umask(0o022)
        _ = Foundation.umask(mask)
        return UInt16(mask & 0o777)
    }()

    /// The policy in force now.
    public func effectivePolicy(now: ContinuousClock.Instant = .now) -> ReceivePolicy {
        if policy == .everyone, let everyoneUntil, now >= everyoneUntil { return fallbackPolicy }
        return policy
    }

    /// Creates a configuration; the inbox and registered applications are those of the process's
    /// environment (``useLocalTypes(paths:environment:)`` chooses others).
    public init(port: UInt16 = ReceiverConfiguration.defaultPort, destination: String, deviceName: String) {
        self.port = port
        self.destination = destination
        self.deviceName = deviceName
        let environment = ProcessInfo.processInfo.environment
        let paths = SharePaths(environment: environment)
        inbox = paths.inboxDirectory
        registry = RegistryProvider(
            applications: ApplicationStore(directory: paths.applicationsDirectory), environment: environment)
        importEnvironment = environment
    }

    /// Uses the inbox, registered applications and shared-mime-info database of `paths` and `environment`.
    public mutating func useLocalTypes(paths: SharePaths, environment: [String: String]) {
        inbox = paths.inboxDirectory
        registry = RegistryProvider(
            applications: ApplicationStore(directory: paths.applicationsDirectory), environment: environment)
        importEnvironment = environment
    }
}
