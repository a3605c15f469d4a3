public import Foundation

/// One line of the transfer history (``TransferHistory``): a transfer in either direction, whom it
/// was with, what it carried (names and sizes, never contents), how it ended and where each item
/// landed or why it did not.
public struct TransferRecord: Codable, Sendable, Equatable {
    /// Which way the documents went.
    public enum Direction: String, Codable, Sendable {
        case sent
        case received
    }

    /// How the transfer ended.
    public enum Outcome: String, Codable, Sendable {
        /// Every item arrived and was verified.
        case completed
        /// The receiver declined the offer.
        case declined
        /// The transfer failed (nothing it carried was kept).
        case failed
    }

    /// The other machine.
    public struct Peer: Codable, Sendable, Equatable {
        /// The name it gave itself (escape before printing: it comes from the peer).
        public var name: String
        /// The name under which this machine verified (pinned) its key, if it did.
        public var pinnedName: String?
        /// Its fingerprint (lowercase hex), when the connection got as far as TLS.
        public var fingerprint: String?
        /// Its address (`HOST:PORT`).
        public var address: String?
        /// For a LocalSend device (never verified): the certificate fingerprint it presented, else the
        /// one it announced, else empty. Nil for share's own peers.
        public var localSendFingerprint: String?

        /// Creates a peer.
        public init(
            name: String, pinnedName: String?, fingerprint: String?, address: String?, localSendFingerprint: String? = nil
        ) {
            self.name = name
            self.pinnedName = pinnedName
            self.fingerprint = fingerprint
            self.address = address
            self.localSendFingerprint = localSendFingerprint
        }
    }

    /// One item (file or folder) of the transfer.
    public struct Item: Codable, Sendable, Equatable {
        /// Its name in the offer.
        public var name: String
        /// Whether it is a folder (a bundle).
        public var bundle: Bool
        /// Bytes it holds.
        public var bytes: UInt64
        /// `placed`, `imported` or `keptInInbox`, the codes of `--json` (docs/JSON.md), in both
        /// directions (a sent item as the receiver reported it); or `notDelivered`. Records written
        /// before these codes say `receiveFolder` and `kept`.
        public var outcome: String
        /// Where it landed: a path on this machine (received), the receiver's words (sent).
        public var location: String?
        /// Why it did not land where it should have (an import that failed).
        public var reason: String?

        /// Creates an item.
        public init(name: String, bundle: Bool, bytes: UInt64, outcome: String, location: String?, reason: String?) {
            self.name = name
            self.bundle = bundle
            self.bytes = bytes
            self.outcome = outcome
            self.location = location
            self.reason = reason
        }
    }

    /// The most items one record lists; the rest are counted in ``moreItems``.
    public static let itemLimit = 100
    /// The most characters of a name, reason or location a record keeps.
    public static let textLimit = 1000

    /// When it ended.
    public var time: Date
    /// Sent or received.
    public var direction: Direction
    /// The other machine.
    public var peer: Peer
    /// How it ended.
    public var outcome: Outcome
    /// Why it was declined or failed.
    public var reason: String?
    /// The items, at most ``itemLimit``.
    public var items: [Item]
    /// Items beyond ``itemLimit`` that are not listed.
    public var moreItems: Int
    /// Files in the transfer.
    public var files: Int
    /// Content bytes of the transfer.
    public var bytes: UInt64

    /// Creates a record, keeping at most ``itemLimit`` items and ``textLimit`` characters of each text.
    public init(
        time: Date = Date(), direction: Direction, peer: Peer, outcome: Outcome, reason: String?, items: [Item],
        files: Int, bytes: UInt64
    ) {
        self.time = time
        self.direction = direction
        self.peer = Peer(
            name: Self.bounded(peer.name), pinnedName: peer.pinnedName.map(Self.bounded), fingerprint: peer.fingerprint,
            address: peer.address, localSendFingerprint: peer.localSendFingerprint.map(Self.bounded))
        self.outcome = outcome
        self.reason = reason.map(Self.bounded)
        self.items = items.prefix(Self.itemLimit).map { item in
            Item(
                name: Self.bounded(item.name), bundle: item.bundle, bytes: item.bytes, outcome: item.outcome,
                location: item.location.map(Self.bounded), reason: item.reason.map(Self.bounded))
        }
        moreItems = max(0, items.count - Self.itemLimit)
        self.files = files
        self.bytes = bytes
    }

    private static func bounded(_ text: String) -> String {
        text.count <= textLimit ? text : String(text.prefix(textLimit)) + "…"
    }
}
