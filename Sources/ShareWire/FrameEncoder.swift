import ShareDocuments

/// Encodes frames into bytes (docs/PROTOCOL.md).
///
/// Frames are appended to a caller-owned buffer, so a sender can batch many small frames into one
/// TLS write.
public enum FrameEncoder {
    /// Appends `frame` to `buffer`.
    public static func append(_ frame: Frame, to buffer: inout [UInt8]) {
        switch frame {
        case .data(let chunk):
            chunk.bytes.withUnsafeBytes {
                appendData(fileIndex: chunk.fileIndex, offset: chunk.offset, encoding: chunk.encoding, bytes: $0, to: &buffer)
            }
            return
        case .fileEnd(let fileIndex, let digest):
            appendFileEnd(fileIndex: fileIndex, sha256: digest, to: &buffer)
            return
        default:
            break
        }
        var payload = ByteWriter(capacity: 256)
        switch frame {
        case .hello(let hello):
            payload.raw(Hello.magic)
            payload.u8(hello.version)
            payload.str8(hello.name)
            payload.u32(hello.features.rawValue)
            payload.u8(hello.flags.rawValue)
        case .offer(let start, let entries):
            payload.u32(start.entryCount)
            payload.u64(start.totalBytes)
            for entry in entries { OfferCodec.encode(entry, into: &payload) }
        case .entries(let entries):
            for entry in entries { OfferCodec.encode(entry, into: &payload) }
        case .decision(let decision):
            payload.u8(decision.code.rawValue)
            payload.str16(decision.message)
            payload.u32(decision.haveCount)
        case .receipt(let receipt):
            payload.u32(UInt32(receipt.items.count))
            for item in receipt.items {
                payload.u8(item.outcome.rawValue)
                payload.str16(item.text)
            }
        case .error(let error):
            let clipped = error.clipped
            payload.u16(clipped.code.rawValue)
            payload.str16(clipped.message)
        case .pair:
            break
        case .verify(let result):
            payload.u8(result.rawValue)
        case .have(let records):
            payload.u32(UInt32(records.count))
            for record in records {
                payload.u32(record.fileIndex)
                payload.u64(record.offset)
                payload.raw(record.sha256)
            }
        case .data, .fileEnd:
            preconditionFailure("handled above")
        }
        appendHeader(frame.type, length: payload.bytes.count, to: &buffer)
        buffer.append(contentsOf: payload.bytes)
    }

    /// Encodes one frame into a new array.
    public static func encode(_ frame: Frame) -> [UInt8] {
        var buffer: [UInt8] = []
        append(frame, to: &buffer)
        return buffer
    }

    /// Appends a DATA frame without building a ``Frame`` (the sender's hot path).
    /// - Precondition: `bytes.count` is 1 ... ``FrameType/maxDataBytes``; a zstd raw length is too.
    public static func appendData(
        fileIndex: UInt32, offset: UInt64, encoding: DataEncoding = .raw, bytes: UnsafeRawBufferPointer,
        to buffer: inout [UInt8]
    ) {
        appendDataHeader(fileIndex: fileIndex, offset: offset, encoding: encoding, payloadCount: bytes.count, to: &buffer)
        buffer.append(contentsOf: bytes)
    }

    /// Appends everything of a DATA frame but its `payloadCount` payload bytes, which the caller
    /// writes right after it (so a large payload need not be copied behind its header).
    /// - Precondition: `payloadCount` is 1 ... ``FrameType/maxDataBytes``; a zstd raw length is too.
    public static func appendDataHeader(
        fileIndex: UInt32, offset: UInt64, encoding: DataEncoding = .raw, payloadCount: Int, to buffer: inout [UInt8]
    ) {
        precondition(payloadCount > 0 && payloadCount <= FrameType.maxDataBytes, "DATA payload out of range")
        let headerSize: Int
        switch encoding {
        case .raw: headerSize = 13
        case .zstd(let rawLength):
            precondition(rawLength > 0 && Int(rawLength) <= FrameType.maxDataBytes, "DATA raw length out of range")
            headerSize = 17
        }
        appendHeader(.data, length: headerSize + payloadCount, to: &buffer)
        appendBigEndian(fileIndex, to: &buffer)
        appendBigEndian(UInt32(truncatingIfNeeded: offset >> 32), to: &buffer)
        appendBigEndian(UInt32(truncatingIfNeeded: offset), to: &buffer)
        buffer.append(encoding.wireValue)
        if case .zstd(let rawLength) = encoding { appendBigEndian(rawLength, to: &buffer) }
    }

    /// Appends a FILE_END frame.
    public static func appendFileEnd(fileIndex: UInt32, sha256: [UInt8], to buffer: inout [UInt8]) {
        precondition(sha256.count == 32, "SHA-256 digests are 32 bytes")
        appendHeader(.fileEnd, length: 36, to: &buffer)
        appendBigEndian(fileIndex, to: &buffer)
        buffer.append(contentsOf: sha256)
    }

    /// Appends the 5-byte header of a frame.
    public static func appendHeader(_ type: FrameType, length: Int, to buffer: inout [UInt8]) {
        precondition(length <= type.maxPayload, "\(type) payload of \(length) bytes exceeds the protocol limit")
        buffer.append(type.rawValue)
        appendBigEndian(UInt32(length), to: &buffer)
    }

    private static func appendBigEndian(_ value: UInt32, to buffer: inout [UInt8]) {
        buffer.append(UInt8(truncatingIfNeeded: value >> 24))
        buffer.append(UInt8(truncatingIfNeeded: value >> 16))
        buffer.append(UInt8(truncatingIfNeeded: value >> 8))
        buffer.append(UInt8(truncatingIfNeeded: value))
    }
}
