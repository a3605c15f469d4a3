public import ShareDocuments

/// Turns a byte stream into frames, in any chunking (docs/PROTOCOL.md §3).
///
/// Feed it bytes as they arrive (``append(_:)`` or, without a copy, ``readInto(minimumSpace:_:)``)
/// and take frames with ``next()`` until it returns nil. A header is checked as soon as its five
/// bytes are buffered: an unknown type or a length above the type's limit throws before the payload
/// is awaited or any space is reserved for it. The payload of a large DATA frame
/// (``directPayloadMinimum`` bytes or more) is read straight into the array the frame will carry,
/// once its fields were checked: its bytes are copied once, not into the buffer and then out
/// again. At end of stream call ``finish()``: bytes left over mean the peer stopped mid-frame.
public struct FrameDecoder: Sendable {
    private var storage: [UInt8]
    private var start = 0
    private var end = 0
    /// The large DATA frame whose payload is being read into its own array: its header fields, the
    /// array (of the payload's length) and how much of it has arrived.
    private var payload: (fileIndex: UInt32, offset: UInt64, encoding: DataEncoding, bytes: [UInt8], filled: Int)?
    /// The header bytes of that frame (counted as buffered until it is returned).
    private var payloadHeaderSize = 0
    /// Whether the last frame returned was a large DATA frame: the next is likely one too, so a read
    /// into an empty buffer takes only a DATA header's worth, and the payload after it goes straight
    /// to its array instead of through the buffer.
    private var followsLargePayload = false
    /// DATA payloads of at least this many bytes are read straight into their own array.
    public static let directPayloadMinimum = 64 << 10
    private let baseCapacity: Int
    /// The manifest limits applied to OFFER frames.
    public let limits: ManifestLimits
    /// Where DATA payloads are copied to: arrays given back after use, when set.
    public let payloadBuffers: PayloadBuffers?

    /// Creates a decoder.
    /// - Parameters:
    ///   - capacity: the buffer size it starts with and returns to after a large frame.
    ///   - limits: the bounds an OFFER must respect.
    ///   - payloadBuffers: arrays to reuse for DATA payloads (nil: each gets a new one).
    public init(
        capacity: Int = 1 << 16, limits: ManifestLimits = .protocolDefault, payloadBuffers: PayloadBuffers? = nil
    ) {
        baseCapacity = max(capacity, 64)
        storage = [UInt8](repeating: 0, count: baseCapacity)
        self.limits = limits
        self.payloadBuffers = payloadBuffers
    }

    /// Bytes received but not yet returned as frames.
    public var bufferedByteCount: Int { end - start + (payload.map { payloadHeaderSize + $0.filled } ?? 0) }

    /// Whether a whole frame (or a header that ``next()`` will refuse) is buffered, so that
    /// ``next()`` returns or throws without more bytes.
    public var hasCompleteFrame: Bool {
        if let payload { return payload.filled == payload.bytes.count }
        guard end - start >= FrameType.headerSize else { return false }
        var length = 0
        for index in (start + 1)..<(start + 5) { length = length << 8 | Int(storage[index]) }
        guard let type = FrameType(rawValue: storage[start]), length <= type.maxPayload else { return true }
        return end - start >= FrameType.headerSize + length
    }

    /// Adds received bytes.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        var bytes = bytes
        if payload != nil {
            let taken = fillPayload { target in
                let count = min(target.count, bytes.count)
                target.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[..<count]))
                return count
            }
            bytes = UnsafeRawBufferPointer(rebasing: bytes[taken...])
        }
        guard bytes.count > 0 else { return }
        reserveTail(bytes.count)
        storage.withUnsafeMutableBytes { target in
            target.baseAddress!.advanced(by: end).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        }
        end += bytes.count
    }

    /// Adds received bytes.
    public mutating func append(contentsOf bytes: some Collection<UInt8>) {
        let array = Array(bytes)
        array.withUnsafeBytes { append($0) }
    }

    /// Lets `body` write received bytes straight into the buffer.
    ///
    /// - Parameters:
    ///   - minimumSpace: the free space `body` is given at least.
    ///   - body: writes into the buffer and returns how many bytes it wrote (0 at end of stream).
    /// - Returns: what `body` returned.
    public mutating func readInto<E: Error>(
        minimumSpace: Int, _ body: (UnsafeMutableRawBufferPointer) throws(E) -> Int
    ) throws(E) -> Int {
        if let payload, payload.filled < payload.bytes.count {
            // The rest of a large payload goes straight into its array (at most that much is read).
            var result: Result<Int, E> = .success(0)
            _ = fillPayload { target in
                do throws(E) {
                    let count = try body(target)
                    precondition(count >= 0 && count <= target.count, "readInto body reported an impossible count")
                    result = .success(count)
                    return count
                } catch {
                    result = .failure(error)
                    return 0
                }
            }
            return try result.get()
        }
        reserveTail(minimumSpace)
        let offset = end
        let tailEnd =
            followsLargePayload && start == end
            ? min(storage.count, offset + FrameType.headerSize + FrameType.dataHeaderSize) : storage.count
        let result: Result<Int, E> = storage.withUnsafeMutableBytes { buffer in
            let tail = UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<tailEnd])
            do throws(E) { return .success(try body(tail)) } catch { return .failure(error) }
        }
        let count = try result.get()
        precondition(count >= 0 && count <= storage.count - offset, "readInto body reported an impossible count")
        end += count
        return count
    }

    /// Returns the next complete frame, or nil when more bytes are needed.
    /// - Throws: ``WireError`` for an unknown type, an oversized length or a malformed payload.
    public mutating func next() throws(WireError) -> Frame? {
        if let current = payload {
            guard current.filled == current.bytes.count else { return nil }
            payload = nil
            followsLargePayload = true
            return .data(
                DataChunk(fileIndex: current.fileIndex, offset: current.offset, encoding: current.encoding, bytes: current.bytes))
        }
        guard end - start >= FrameType.headerSize else { return nil }
        guard let type = FrameType(rawValue: storage[start]) else { throw .unknownFrameType(storage[start]) }
        var length = 0
        for index in (start + 1)..<(start + 5) { length = length << 8 | Int(storage[index]) }
        if length > type.maxPayload { throw .frameTooLarge(type, length: length, limit: type.maxPayload) }
        let frameEnd = start + FrameType.headerSize + length
        guard frameEnd <= end else {
            if type == .data, length >= Self.directPayloadMinimum { try startPayload(length: length) }
            return nil
        }
        let payload = storage[(start + FrameType.headerSize)..<frameEnd]
        let frame = try parse(type, payload)
        followsLargePayload = false
        start = frameEnd
        if start == end {
            start = 0
            end = 0
            if storage.count > 2 * baseCapacity { storage = [UInt8](repeating: 0, count: baseCapacity) }
        }
        return frame
    }

    /// Call at end of stream: throws ``WireError/truncated(bufferedBytes:)`` if a frame was cut off.
    public func finish() throws(WireError) {
        if bufferedByteCount > 0 { throw .truncated(bufferedBytes: bufferedByteCount) }
    }

    /// Once the header of an incomplete large DATA frame (`length` bytes of payload) is buffered:
    /// checks it, moves the payload bytes buffered so far into the frame's own array, and reads the
    /// rest there (``readInto(minimumSpace:_:)``).
    private mutating func startPayload(length: Int) throws(WireError) {
        let fieldsStart = start + FrameType.headerSize
        // Index, offset and encoding; a zstd chunk's raw length after them.
        let rawFieldsSize = FrameType.dataHeaderSize - 4
        guard end - fieldsStart >= rawFieldsSize else { return }
        if storage[fieldsStart + rawFieldsSize - 1] == 1, end - fieldsStart < FrameType.dataHeaderSize { return }
        var reader = ByteReader(storage[fieldsStart..<end], frameType: .data)
        let (fileIndex, offset, encoding) = try Self.dataFields(&reader)
        let fieldsSize = end - fieldsStart - reader.remaining
        let count = length - fieldsSize
        if count > FrameType.maxDataBytes { throw .malformed(.data, "\(count) payload bytes") }
        var bytes = payloadBuffers?.array(count: count) ?? [UInt8](repeating: 0, count: count)
        let buffered = end - fieldsStart - fieldsSize
        storage.withUnsafeBytes { source in
            bytes.withUnsafeMutableBytes { target in
                target.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[(fieldsStart + fieldsSize)..<end]))
            }
        }
        payload = (fileIndex, offset, encoding, bytes, buffered)
        payloadHeaderSize = FrameType.headerSize + fieldsSize
        start = 0
        end = 0
    }

    /// The fields of a DATA frame before its payload: file index, offset and encoding (with a zstd
    /// chunk's raw length, which must be 1 ... ``FrameType/maxDataBytes``).
    private static func dataFields(_ reader: inout ByteReader) throws(WireError) -> (UInt32, UInt64, DataEncoding) {
        let index = try reader.u32()
        let offset = try reader.u64()
        let rawEncoding = try reader.u8()
        switch rawEncoding {
        case 0: return (index, offset, .raw)
        case 1:
            let rawLength = try reader.u32()
            if rawLength == 0 || Int(rawLength) > FrameType.maxDataBytes {
                throw .malformed(.data, "a compressed length of \(rawLength) bytes (1 ... \(FrameType.maxDataBytes))")
            }
            return (index, offset, .zstd(rawLength: rawLength))
        default: throw .malformed(.data, "unknown encoding \(rawEncoding)")
        }
    }

    /// Lets `body` write into the rest of the large payload being read; returns what it wrote.
    private mutating func fillPayload(_ body: (UnsafeMutableRawBufferPointer) -> Int) -> Int {
        guard var current = payload else { return 0 }
        payload = nil    // the array stays uniquely referenced while it is written
        let filled = current.filled
        let count = current.bytes.withUnsafeMutableBytes { target in
            body(UnsafeMutableRawBufferPointer(rebasing: target[filled...]))
        }
        current.filled += count
        payload = current
        return count
    }

    private mutating func reserveTail(_ count: Int) {
        if storage.count - end >= count { return }
        if start > 0 {
            let live = end - start
            storage.withUnsafeMutableBytes { buffer in
                let base = buffer.baseAddress!
                base.copyMemory(from: base.advanced(by: start), byteCount: live)
            }
            start = 0
            end = live
            if storage.count - end >= count { return }
        }
        var newCount = storage.count
        while newCount - end < count { newCount *= 2 }
        storage.append(contentsOf: repeatElement(0, count: newCount - storage.count))
    }

    private func parse(_ type: FrameType, _ payload: ArraySlice<UInt8>) throws(WireError) -> Frame {
        var reader = ByteReader(payload, frameType: type)
        switch type {
        case .hello:
            let magic = try reader.raw(4)
            guard magic.elementsEqual(Hello.magic) else { throw .unsupportedVersion(peerVersion: nil) }
            let version = try reader.u8()
            guard version == Hello.currentVersion else { throw .unsupportedVersion(peerVersion: version) }
            let name = try reader.str8("the device name")
            let features = HelloFeatures(rawValue: try reader.u32())
            let flags = HelloFlags(rawValue: try reader.u8())
            try reader.expectEnd()
            if name.isEmpty || name.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
                throw .malformed(type, "the device name is empty or contains control characters")
            }
            if !flags.subtracting(.all).isEmpty { throw .malformed(type, "unknown flags 0x\(String(flags.rawValue, radix: 16))") }
            return .hello(Hello(name: name, features: features, flags: flags, version: version))
        case .offer:
            return try OfferCodec.decodeOffer(&reader, limits: limits)
        case .entries:
            return .entries(try OfferCodec.decodeEntries(&reader, frameType: .entries, limits: limits))
        case .decision:
            let raw = try reader.u8()
            guard let code = DecisionCode(rawValue: raw) else { throw .malformed(type, "unknown decision code \(raw)") }
            let message = try reader.str16("the message")
            let haveCount = try reader.u32()
            try reader.expectEnd()
            if haveCount != 0 && code != .accepted { throw .malformed(type, "HAVE records announced with a refusal") }
            return .decision(Decision(code, message: message, haveCount: haveCount))
        case .data:
            let (index, offset, encoding) = try Self.dataFields(&reader)
            let bytes = reader.rest()
            if bytes.isEmpty { throw .malformed(type, "no file bytes") }
            if bytes.count > FrameType.maxDataBytes { throw .malformed(type, "\(bytes.count) payload bytes") }
            let payload = payloadBuffers?.array(holding: bytes) ?? Array(bytes)
            return .data(DataChunk(fileIndex: index, offset: offset, encoding: encoding, bytes: payload))
        case .fileEnd:
            let index = try reader.u32()
            let digest = Array(try reader.raw(32))
            try reader.expectEnd()
            return .fileEnd(fileIndex: index, sha256: digest)
        case .receipt:
            let count = Int(try reader.u32())
            if count > limits.maxItems { throw .malformed(type, "\(count) items (the limit is \(limits.maxItems))") }
            if count * 3 > reader.remaining { throw .malformed(type, "\(count) items cannot fit in the payload") }
            var items: [ReceiptItem] = []
            items.reserveCapacity(count)
            for _ in 0..<count {
                let outcome = ReceiptOutcome(wireValue: try reader.u8())
                items.append(ReceiptItem(outcome, try reader.str16("an item's text")))
            }
            try reader.expectEnd()
            return .receipt(Receipt(items: items))
        case .pair:
            try reader.expectEnd()
            return .pair
        case .verify:
            let raw = try reader.u8()
            try reader.expectEnd()
            guard let result = VerifyResult(rawValue: raw) else { throw .malformed(type, "unknown result \(raw)") }
            return .verify(result)
        case .have:
            let count = Int(try reader.u32())
            if count == 0 { throw .malformed(type, "no records") }
            if count * HaveRecord.encodedSize != reader.remaining {
                throw .malformed(type, "\(count) records in \(reader.remaining) bytes")
            }
            var records: [HaveRecord] = []
            records.reserveCapacity(count)
            for _ in 0..<count {
                let index = try reader.u32()
                let offset = try reader.u64()
                records.append(HaveRecord(fileIndex: index, offset: offset, sha256: Array(try reader.raw(32))))
            }
            return .have(records)
        case .error:
            let code = ErrorCode(wireValue: try reader.u16())
            let message = try reader.str16("the message")
            try reader.expectEnd()
            return .error(PeerError(code, message))
        }
    }
}
