/// DATA: a piece of one file, at a position, raw or zstd-compressed (docs/PROTOCOL.md §4, §8).
public struct DataChunk: Sendable, Hashable {
    /// The file's index among the offer's files.
    public var fileIndex: UInt32
    /// The position in the file of the first byte this chunk carries.
    public var offset: UInt64
    /// How the bytes are encoded.
    public var encoding: DataEncoding
    /// The payload: the file bytes (raw) or one zstd frame.
    public var bytes: [UInt8]

    /// Creates a chunk.
    public init(fileIndex: UInt32, offset: UInt64, encoding: DataEncoding = .raw, bytes: [UInt8]) {
        self.fileIndex = fileIndex
        self.offset = offset
        self.encoding = encoding
        self.bytes = bytes
    }

    /// How many file bytes the chunk stands for (after decompression).
    public var fileByteCount: Int {
        switch encoding {
        case .raw: bytes.count
        case .zstd(let rawLength): Int(rawLength)
        }
    }
}

/// The encoding of a DATA payload.
public enum DataEncoding: Sendable, Hashable {
    /// The bytes are the file's bytes.
    case raw
    /// The bytes are one zstd frame that decompresses to `rawLength` bytes.
    case zstd(rawLength: UInt32)

    /// The encoding byte on the wire.
    public var wireValue: UInt8 {
        switch self {
        case .raw: 0
        case .zstd: 1
        }
    }
}
