/// The type byte of a frame (docs/PROTOCOL.md §3), with the largest payload each may carry.
public enum FrameType: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case hello = 0x01
    case offer = 0x02
    case decision = 0x03
    case data = 0x04
    case fileEnd = 0x05
    case receipt = 0x06
    case error = 0x07
    case pair = 0x08
    case verify = 0x09
    case have = 0x0A
    case entries = 0x0B

    /// The largest payload a frame of this type may declare; checked before anything is allocated.
    public var maxPayload: Int {
        switch self {
        case .hello: 1_024
        case .offer, .entries: 16 << 20
        case .decision: 4_096
        case .data: FrameType.dataHeaderSize + FrameType.maxDataBytes
        case .fileEnd: 36
        case .receipt: 16 << 20
        case .error: 4_096
        case .pair: 0
        case .verify: 1
        case .have: 4 + (1 << 20)
        }
    }

    /// The most file bytes one DATA frame carries (raw, or after decompression), and the most
    /// payload bytes after its header.
    public static let maxDataBytes = 1 << 20

    /// The largest DATA header: file index, offset, encoding, raw length.
    public static let dataHeaderSize = 4 + 8 + 1 + 4

    /// Bytes in a frame header: type (1) and payload length (4).
    public static let headerSize = 5

    public var description: String {
        switch self {
        case .hello: "HELLO"
        case .offer: "OFFER"
        case .decision: "DECISION"
        case .data: "DATA"
        case .fileEnd: "FILE_END"
        case .receipt: "RECEIPT"
        case .error: "ERROR"
        case .pair: "PAIR"
        case .verify: "VERIFY"
        case .have: "HAVE"
        case .entries: "ENTRIES"
        }
    }
}
