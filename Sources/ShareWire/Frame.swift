public import ShareDocuments

/// One decoded message of the share protocol.
public enum Frame: Sendable, Hashable {
    /// Version and device name; each side's first frame.
    case hello(Hello)
    /// The validated list of entries the sender proposes.
    case offer(Manifest)
    /// The receiver's answer to the offer.
    case decision(Decision)
    /// A piece of the content of file `fileIndex`.
    case data(fileIndex: UInt32, bytes: [UInt8])
    /// The end of file `fileIndex`, with the SHA-256 of its content.
    case fileEnd(fileIndex: UInt32, sha256: [UInt8])
    /// Where each item landed.
    case receipt(Receipt)
    /// A failure; the connection closes after it.
    case error(PeerError)
    /// A request to verify each other's identity (compare codes, then remember each other),
    /// sent instead of an OFFER.
    case pair

    /// The frame's type byte.
    public var type: FrameType {
        switch self {
        case .hello: .hello
        case .offer: .offer
        case .decision: .decision
        case .data: .data
        case .fileEnd: .fileEnd
        case .receipt: .receipt
        case .error: .error
        case .pair: .pair
        }
    }
}
