/// Appends big-endian integers and length-prefixed strings to a byte buffer.
public struct ByteWriter: Sendable {
    /// The bytes written so far.
    public var bytes: [UInt8]

    /// Creates a writer, reserving `capacity` bytes.
    public init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    @inlinable public mutating func u8(_ value: UInt8) { bytes.append(value) }
    @inlinable public mutating func u16(_ value: UInt16) { append(bigEndian: value) }
    @inlinable public mutating func u32(_ value: UInt32) { append(bigEndian: value) }
    @inlinable public mutating func u64(_ value: UInt64) { append(bigEndian: value) }
    @inlinable public mutating func i64(_ value: Int64) { append(bigEndian: UInt64(bitPattern: value)) }

    /// Appends raw bytes.
    public mutating func raw(_ value: some Sequence<UInt8>) { bytes.append(contentsOf: value) }

    /// Appends a string with a one-byte length. The caller guarantees it fits (≤ 255 bytes).
    public mutating func str8(_ value: String) {
        let utf8 = value.utf8
        precondition(utf8.count <= Int(UInt8.max), "str8 too long")
        u8(UInt8(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    /// Appends a string with a two-byte length. The caller guarantees it fits (≤ 65,535 bytes).
    public mutating func str16(_ value: String) {
        let utf8 = value.utf8
        precondition(utf8.count <= Int(UInt16.max), "str16 too long")
        u16(UInt16(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    @usableFromInline mutating func append<T: FixedWidthInteger>(bigEndian value: T) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }
}
