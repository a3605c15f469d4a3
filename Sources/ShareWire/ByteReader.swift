/// Reads big-endian integers and length-prefixed strings from a payload, never past its end.
///
/// Every read checks the remaining length first and throws ``WireError/malformed(_:_:)`` instead of
/// trapping, so no peer-supplied length can make the reader allocate or read out of bounds.
struct ByteReader {
    private let bytes: ArraySlice<UInt8>
    private var position: Int
    private let frameType: FrameType

    init(_ bytes: ArraySlice<UInt8>, frameType: FrameType) {
        self.bytes = bytes
        self.position = bytes.startIndex
        self.frameType = frameType
    }

    var remaining: Int { bytes.endIndex - position }
    var isAtEnd: Bool { position == bytes.endIndex }

    mutating func u8() throws(WireError) -> UInt8 {
        try need(1, "a byte")
        defer { position += 1 }
        return bytes[position]
    }

    mutating func u16() throws(WireError) -> UInt16 { UInt16(truncatingIfNeeded: try integer(2)) }
    mutating func u32() throws(WireError) -> UInt32 { UInt32(truncatingIfNeeded: try integer(4)) }
    mutating func u64() throws(WireError) -> UInt64 { try integer(8) }
    mutating func i64() throws(WireError) -> Int64 { Int64(bitPattern: try integer(8)) }

    mutating func raw(_ count: Int) throws(WireError) -> ArraySlice<UInt8> {
        try need(count, "\(count) bytes")
        defer { position += count }
        return bytes[position..<(position + count)]
    }

    mutating func rest() -> ArraySlice<UInt8> {
        defer { position = bytes.endIndex }
        return bytes[position...]
    }

    mutating func str8(_ field: String) throws(WireError) -> String {
        let length = Int(try u8())
        return try string(length, field)
    }

    mutating func str16(_ field: String) throws(WireError) -> String {
        let length = Int(try u16())
        return try string(length, field)
    }

    /// Throws unless the whole payload was consumed.
    func expectEnd() throws(WireError) {
        if !isAtEnd { throw .malformed(frameType, "\(remaining) unexpected bytes at the end") }
    }

    private mutating func string(_ length: Int, _ field: String) throws(WireError) -> String {
        let slice = try raw(length)
        guard let text = String(validating: slice, as: UTF8.self) else {
            throw .malformed(frameType, "\(field) is not valid UTF-8")
        }
        if slice.contains(0) { throw .malformed(frameType, "\(field) contains NUL") }
        return text
    }

    /// A big-endian integer of `size` bytes (not generic: an offer of a million entries reads five
    /// million of them, which unspecialized generic code makes several times slower).
    private mutating func integer(_ size: Int) throws(WireError) -> UInt64 {
        try need(size, "\(size) bytes")
        var value: UInt64 = 0
        for index in position..<(position + size) { value = value << 8 | UInt64(bytes[index]) }
        position += size
        return value
    }

    private func need(_ count: Int, _ what: @autoclosure () -> String) throws(WireError) {
        if remaining < count { throw .malformed(frameType, "the payload ends where \(what()) should be") }
    }
}
