/// Why a zstd frame was refused (``ZstdDecompressor``).
public enum ZstdFrameError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes do not start with the zstd frame magic number (a skippable frame, a frame of the
    /// pre-1.0 format, or not zstd at all).
    case notZstd
    /// The frame is cut short.
    case truncated
    /// The frame header declares another content size than expected.
    case declaredLength(UInt64, expected: Int)
    /// Bytes follow the end of the frame (a second frame, or garbage).
    case trailingBytes(Int)
    /// libzstd could not decode the frame; its reason.
    case damaged(String)
    /// The frame decompresses to more than the expected number of bytes.
    case longerThanExpected(expected: Int)
    /// The frame decompresses to fewer bytes than expected.
    case shorterThanExpected(Int, expected: Int)

    public var description: String {
        switch self {
        case .notZstd: "it is not a zstd frame"
        case .truncated: "its zstd frame is cut short"
        case .declaredLength(let declared, let expected):
            "its zstd frame declares \(declared) bytes, but \(expected) were announced"
        case .trailingBytes(let count): "\(count) bytes follow its zstd frame"
        case .damaged(let reason): "its zstd frame is damaged (\(reason))"
        case .longerThanExpected(let expected): "its zstd frame decompresses to more than the \(expected) bytes announced"
        case .shorterThanExpected(let count, let expected):
            "its zstd frame decompresses to \(count) bytes, but \(expected) were announced"
        }
    }
}
