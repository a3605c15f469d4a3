public import ShareTLS

/// A transfer the receiver accepted, verified and committed.
public struct ReceivedTransfer: Sendable {
    /// One item and where it landed.
    public struct Item: Sendable {
        /// The name the sender gave it (escape before printing).
        public var name: String
        /// Whether it is a folder (a bundle).
        public var isBundle: Bool
        /// Whether it is a text (`share send --text`), carried in the offer rather than as a file.
        public var isNote: Bool = false
        /// Its absolute path now: in the receive folder, in the importing application's folder, or
        /// in the inbox when its import failed; `nil` once a `command` importer took it.
        public var path: String?
        /// Files it holds.
        public var files: Int
        /// Bytes it holds.
        public var bytes: UInt64
        /// Its type, the handler chosen, and what the import did.
        public var result: ImportResult
    }

    /// A received file and its verified SHA-256.
    public typealias VerifiedFile = ShareKit.VerifiedFile

    /// The sender's device name (escape before printing).
    public var peerName: String
    /// The sender's fingerprint.
    public var peerFingerprint: Fingerprint
    /// The sender's address.
    public var peerAddress: String
    /// The items, in offer order.
    public var items: [Item]
    /// Every file with its verified hash.
    public var files: VerifiedFiles
    /// Content bytes.
    public var bytes: UInt64
    /// Seconds from the first byte of data to the commit.
    public var seconds: Double
    /// The team CA that vouched for the sender, if any (see ``IncomingOffer/peerTrustedBy``).
    public var peerTrustedBy: CAInfo? = nil
    /// The name this machine verified the sender under, if it is verified (also when it was verified
    /// during this transfer).
    public var pinnedName: String? = nil
    /// Whether both users compared the code during this transfer (the sender is now verified).
    public var verifiedNow = false
    /// A verified peer whose name this (unverified) sender claims.
    public var claimsNameOf: TrustStore.Peer? = nil
    /// The LocalSend device it came from, when it came over LocalSend (see ``IncomingOffer/localSend``).
    public var localSend: LocalSendOrigin? = nil
    /// Whether every file was checked against a SHA-256 its sender gave (always for share's own
    /// senders; a LocalSend sender may give none, and its files are then only hashed here).
    public var checkedAgainstSender = true
    /// Bytes this receiver already held from an earlier connection of the same transfer (continued).
    public var resumedBytes: UInt64 = 0
}
