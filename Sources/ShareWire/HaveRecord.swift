/// One HAVE record: the receiver holds the first `offset` bytes of file `fileIndex`, whose SHA-256
/// is `sha256` (docs/PROTOCOL.md §7).
public struct HaveRecord: Sendable, Hashable {
    /// The file's index among the offer's files.
    public var fileIndex: UInt32
    /// How many leading bytes the receiver holds (1 ... the file's size).
    public var offset: UInt64
    /// The SHA-256 of those bytes (32 bytes).
    public var sha256: [UInt8]

    /// Creates a record.
    public init(fileIndex: UInt32, offset: UInt64, sha256: [UInt8]) {
        self.fileIndex = fileIndex
        self.offset = offset
        self.sha256 = sha256
    }

    /// The bytes one record takes in a HAVE frame.
    public static let encodedSize = 4 + 8 + 32
    /// The most records one HAVE frame carries.
    public static let maxPerFrame = (FrameType.have.maxPayload - 4) / encodedSize
}
