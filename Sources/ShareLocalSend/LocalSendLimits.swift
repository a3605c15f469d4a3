public import ShareDocuments

/// Bounds on what a LocalSend peer may send, checked before anything is kept.
public enum LocalSendLimits {
    /// A file id or a session token.
    public static let idBytes = 128

    /// Bounds on a `prepare-upload` request.
    public struct Upload: Sendable {
        /// The request's JSON body (30,000 files with names take about 6 MiB).
        public var requestBytes = 8 << 20
        /// Files in one request.
        public var files = 30_000
        /// One file's size.
        public var fileBytes: UInt64 = 1 << 42
        /// All files together.
        public var totalBytes: UInt64 = 1 << 44
        /// Names, as for share's own offers (docs/PROTOCOL.md §11).
        public var pathLimits = ManifestLimits.protocolDefault

        /// The default bounds.
        public init() {}
    }

    /// A multicast message or a `/register` body (a device description). LocalSend's own messages
    /// are a few hundred bytes.
    public static let messageBytes = 16 << 10
    /// An alias or a device model, in UTF-8 bytes.
    public static let aliasBytes = 256
    /// A fingerprint: SHA-256 in hex is 64 characters; HTTP-mode devices use a random string.
    public static let fingerprintBytes = 128
}
