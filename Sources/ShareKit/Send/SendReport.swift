public import ShareTLS

/// What a completed send did.
public struct SendReport: Sendable {
    /// One item (file, folder or note) and what became of it.
    public struct Item: Sendable {
        /// The local path that was sent (empty for a note).
        public var source: String
        /// The item's name in the offer.
        public var name: String
        /// Whether it was sent as a bundle (a folder).
        public var isBundle: Bool
        /// Whether it is a note (`share send --text`): its text travelled in the offer, so it is
        /// none of ``SendReport/files``.
        public var isNote: Bool = false
        /// Placed, imported, or kept in the receiver's inbox.
        public var outcome: SentItemOutcome
        /// Where it landed, the importing application, or why it stayed in the inbox (from the
        /// receiver: escape before printing).
        public var text: String
    }

    /// One file and its SHA-256, verified by the receiver.
    public typealias VerifiedFile = ShareKit.VerifiedFile

    /// The receiver's device name as it calls itself (escape before printing).
    public var peerName: String
    /// The name this machine verified the receiver under, when it is verified and that differs.
    public var pinnedName: String?
    /// The receiver's fingerprint.
    public var peerFingerprint: Fingerprint
    /// Whether the receiver is verified.
    public var peerVerification: PeerVerification
    /// The address the transfer went to.
    public var endpoint: String
    /// The items, in the order sent.
    public var items: [Item]
    /// Every file with its verified hash.
    public var files: VerifiedFiles
    /// Total content bytes.
    public var bytes: UInt64
    /// Seconds the data took, from the first byte sent to the receipt (the time spent deciding is
    /// not counted).
    public var seconds: Double
    /// Seconds spent waiting for the receiver's (and this side's user's) decision.
    public var waitedSeconds: Double
    /// The team CA that vouched for the receiver, when one the user added issued its certificate
    /// (``SendOptions/trustAnchors``). Its identity is still ``peerFingerprint``.
    public var peerTrustedBy: CAInfo? = nil
    /// Bytes the receiver already held from an earlier attempt, and that were not sent again.
    public var resumedBytes: UInt64 = 0
    /// What zstd did (docs/PROTOCOL.md §8): nil when ZSTD was not in use on the connection (turned
    /// off here, or a receiver that does not decode it), so every byte went raw.
    public var compression: CompressionStatistics? = nil
    /// Connections it took (1 when nothing failed on the way).
    public var attempts = 1
}
