public import ShareDocuments

/// Turns a byte stream into frames, in any chunking (docs/PROTOCOL.md §3).
///
/// Feed it bytes as they arrive (``append(_:)`` or, without a copy, ``readInto(minimumSpace:_:)``)
/// and take frames with ``next()`` until it returns nil. A header is checked as soon as its five
/// bytes are buffered: an unknown type or a length above the type's limit throws before the payload
/// is awaited or any space is reserved for it. At end of stream call ``finish()``: bytes left over
/// mean the peer stopped mid-frame.
public struct FrameDecoder: Sendable {
    private var storage: [UInt8]
    private var start = 0
    private var end = 0
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
    public var bufferedByteCount: Int { end - start }

    /// Whether a whole frame (or a header that ``next()`` will refuse) is buffered, so that
    /// ``next()`` returns or throws without more bytes.
    public var hasCompleteFrame: Bool {
        guard end - start >= FrameType.headerSize else { return false }
        var length = 0
        for index in (start + 1)..<(start + 5) { length = length << 8 | Int(storage[index]) }
        guard let type = FrameType(rawValue: storage[start]), length <= type.maxPayload else { return true }
        return end - start >= FrameType.headerSize + length
    }

    /// Adds received bytes.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
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
        reserveTail(minimumSpace)
        let offset = end
        let result: Result<Int, E> = storage.withUnsafeMutableBytes { buffer in
            let tail = UnsafeMutableRawBufferPointer(rebasing: buffer[offset...])
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
        guard end - start >= FrameType.headerSize else { return nil }
        guard let type = FrameType(rawValue: storage[start]) else { throw .unknownFrameType(storage[start]) }
        var length = 0
        for index in (start + 1)..<(start + 5) { length = length << 8 | Int(storage[index]) }
        if length > type.maxPayload { throw .frameTooLarge(type, length: length, limit: type.maxPayload) }
        let frameEnd = start + FrameType.headerSize + length
        guard frameEnd <= end else { return nil }
        let payload = storage[(start + FrameType.headerSize)..<frameEnd]
        let frame = try parse(type, payload)
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
        if end > start { throw .truncated(bufferedBytes: end - start) }
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
            let index = try reader.u32()
            let offset = try reader.u64()
            let rawEncoding = try reader.u8()
            let encoding: DataEncoding
            switch rawEncoding {
            case 0: encoding = .raw
            case 1:
                let rawLength = try reader.u32()
                if rawLength == 0 || Int(rawLength) > FrameType.maxDataBytes {
                    throw .malformed(type, "a compressed length of \(rawLength) bytes (1 ... \(FrameType.maxDataBytes))")
                }
                encoding = .zstd(rawLength: rawLength)
            default: throw .malformed(type, "unknown encoding \(rawEncoding)")
            }
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
