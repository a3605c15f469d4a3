import ShareTLS

/// What a receiver already holds of one file of a continued transfer: its first `offset` bytes,
/// and the hash of them so far (the writer goes on from there; HAVE carries its digest).
struct HeldFile: Sendable {
    /// The file's index among the offer's files.
    var fileIndex: Int
    /// Bytes held.
    var offset: UInt64
    /// SHA-256 of those bytes, not finalized.
    var hasher: SHA256

    /// The digest of the held bytes.
    var digest: [UInt8] { hasher.finalizedCopy }
}
