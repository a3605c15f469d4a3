import ShareDocuments

/// Encodes frames into bytes (docs/PROTOCOL.md).
///
/// Frames are appended to a caller-owned buffer, so a sender can batch many small frames into one
/// TLS write.
public enum FrameEncoder {
    /// Appends `frame` to `buffer`.
    public static func append(_ frame: Frame, to buffer: inout [UInt8]) {
        switch frame {
        case .data(let fileIndex, let bytes):
            bytes.withUnsafeBytes { appendData(fileIndex: fileIndex, bytes: $0, to: &buffer) }
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
        case .offer(let manifest):
            encodeOffer(manifest, into: &payload)
        case .decision(let decision):
            payload.u8(decision.code.rawValue)
            payload.str16(decision.message)
        case .receipt(let receipt):
            payload.u32(UInt32(receipt.locations.count))
            for location in receipt.locations { payload.str16(location) }
        case .error(let error):
            let clipped = error.clipped
            payload.u16(clipped.code.rawValue)
            payload.str16(clipped.message)
        case .pair:
            break
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
    /// - Precondition: `bytes.count` is 1 ... ``FrameType/maxDataBytes``.
    public static func appendData(fileIndex: UInt32, bytes: UnsafeRawBufferPointer, to buffer: inout [UInt8]) {
        precondition(bytes.count > 0 && bytes.count <= FrameType.maxDataBytes, "DATA payload out of range")
        appendHeader(.data, length: 4 + bytes.count, to: &buffer)
        appendBigEndian(fileIndex, to: &buffer)
        buffer.append(contentsOf: bytes)
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

    private static func encodeOffer(_ manifest: Manifest, into payload: inout ByteWriter) {
        payload.bytes.reserveCapacity(16 + manifest.entries.count * 48)
        payload.u32(UInt32(manifest.entries.count))
        payload.u64(manifest.totalBytes)
        for entry in manifest.entries {
            payload.u8(entry.kind.rawValue)
            payload.str16(entry.path)
            payload.u16(entry.mode)
            payload.i64(entry.modificationSeconds)
            payload.u32(entry.modificationNanoseconds)
            payload.u64(entry.size)
            payload.str16(entry.linkTarget)
            payload.str8(entry.declaredType)
        }
    }
}
