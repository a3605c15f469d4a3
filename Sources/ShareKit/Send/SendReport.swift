public import ShareTLS

/// What a completed send did.
public struct SendReport: Sendable {
    /// One item (file or folder) and where it landed.
    public struct Item: Sendable {
        /// The local path that was sent.
        public var source: String
        /// The item's name in the offer.
        public var name: String
        /// Whether it was sent as a bundle (a folder).
        public var isBundle: Bool
        /// Where the receiver says it landed (escape before printing: it comes from the peer).
        public var location: String
    }

    /// One file and its SHA-256, verified by the receiver.
    public struct VerifiedFile: Sendable {
        /// The file's path in the offer.
        public var path: String
        /// Its size.
        public var bytes: UInt64
        /// Lowercase hex SHA-256.
        public var sha256: String
    }

    /// The receiver's device name (escape before printing).
    public var peerName: String
    /// The receiver's fingerprint.
    public var peerFingerprint: Fingerprint
    /// Whether the receiver is verified.
    public var peerVerification: PeerVerification
    /// The address the transfer went to.
    public var endpoint: String
    /// The items, in the order sent.
    public var items: [Item]
    /// Every file with its verified hash.
    public var files: [VerifiedFile]
    /// Total content bytes.
    public var bytes: UInt64
    /// Wall-clock seconds from connecting to the receipt.
    public var seconds: Double
    /// The team CA that vouched for the receiver, when one the user added issued its certificate
    /// (``SendOptions/trustAnchors``). Its identity is still ``peerFingerprint``.
    public var peerTrustedBy: CAInfo? = nil
}
