public import ShareDocuments

/// One decoded message of the share protocol (docs/PROTOCOL.md §4).
public enum Frame: Sendable, Hashable {
    /// Version, device name, features and flags; each side's first frame.
    case hello(Hello)
    /// The start of an offer: its size, and its first entries (not yet validated as a whole).
    case offer(OfferStart, entries: ManifestEntries)
    /// More entries of the offer.
    case entries(ManifestEntries)
    /// The receiver's answer to the offer.
    case decision(Decision)
    /// A piece of a file.
    case data(DataChunk)
    /// The end of file `fileIndex`, with the SHA-256 of its whole content.
    case fileEnd(fileIndex: UInt32, sha256: [UInt8])
    /// What became of each item.
    case receipt(Receipt)
    /// A failure; the connection closes after it.
    case error(PeerError)
    /// A request to verify each other's identity (compare codes, then remember each other),
    /// sent instead of an OFFER.
    case pair
    /// The sender's user's answer about the verification code.
    case verify(VerifyResult)
    /// What the receiver already holds of the offer's files.
    case have([HaveRecord])

    /// The frame's type byte.
    public var type: FrameType {
        switch self {
        case .hello: .hello
        case .offer: .offer
        case .entries: .entries
        case .decision: .decision
        case .data: .data
        case .fileEnd: .fileEnd
        case .receipt: .receipt
        case .error: .error
        case .pair: .pair
        case .verify: .verify
        case .have: .have
        }
    }
}
