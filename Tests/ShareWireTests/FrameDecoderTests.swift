import ShareDocuments
import ShareWire
import Testing

@Suite struct FrameDecoderTests {
    /// A conversation's worth of frames, including large DATA frames.
    static let frames: [Frame] = {
        var frames: [Frame] = [
            .hello(Hello(name: "laptop ✓")),
            .offer(GoldenVectorTests.sampleManifest),
            .decision(.accept),
        ]
        frames.append(.data(fileIndex: 0, bytes: Array(repeating: 7, count: 3)))
        frames.append(.fileEnd(fileIndex: 0, sha256: Array(repeating: 1, count: 32)))
        frames.append(.data(fileIndex: 1, bytes: (0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }))
        frames.append(.receipt(Receipt(locations: ["~/Downloads/a.txt", "~/Downloads/B (2).sbz"])))
        frames.append(.error(PeerError(.cancelled, "stopped")))
        return frames
    }()

    static let stream: [UInt8] = frames.flatMap(FrameEncoder.encode)

    static func decode(_ bytes: [UInt8], chunk: Int) throws -> [Frame] {
        var decoder = FrameDecoder(capacity: 64)
        var decoded: [Frame] = []
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + chunk, bytes.count)
            decoder.append(contentsOf: bytes[offset..<end])
            while let frame = try decoder.next() { decoded.append(frame) }
            offset = end
        }
        try decoder.finish()
        return decoded
    }

    @Test func decodesTheSameFramesAtEveryChunkSizeFromOneByte() throws {
        for size in 1...Self.stream.count {
            #expect(try Self.decode(Self.stream, chunk: size) == Self.frames, "chunk size \(size)")
        }
    }

    @Test func decodesMaximalDataFramesInOddChunks() throws {
        let big: [Frame] = (0..<3).map { index in
            .data(fileIndex: UInt32(index), bytes: (0..<FrameType.maxDataBytes).map { UInt8(truncatingIfNeeded: $0 &+ index) })
        }
        let bytes = big.flatMap(FrameEncoder.encode)
        for size in [1 << 14 - 1, 65_537, 1 << 20 + 3, bytes.count] {
            #expect(try Self.decode(bytes, chunk: size) == big, "chunk size \(size)")
        }
    }

    @Test func readsStraightIntoTheBuffer() throws {
        var decoder = FrameDecoder(capacity: 64)
        var offset = 0
        var decoded: [Frame] = []
        while offset < Self.stream.count {
            let count = decoder.readInto(minimumSpace: 4096) { tail in
                let n = min(tail.count, Self.stream.count - offset, 5000)
                Self.stream[offset..<(offset + n)].withUnsafeBytes { tail.copyMemory(from: $0) }
                return n
            }
            offset += count
            while let frame = try decoder.next() { decoded.append(frame) }
        }
        #expect(decoded == Self.frames)
    }

    @Test func refusesAnOversizedLengthFromTheHeaderAlone() {
        for type in FrameType.allCases {
            var decoder = FrameDecoder()
            var header: [UInt8] = []
            FrameEncoder.appendHeader(type, length: 0, to: &header)
            let tooLong = UInt32(type.maxPayload + 1)
            header[1...4] = [UInt8(tooLong >> 24), UInt8(tooLong >> 16 & 0xFF), UInt8(tooLong >> 8 & 0xFF), UInt8(tooLong & 0xFF)]
            decoder.append(contentsOf: header)
            #expect(throws: WireError.frameTooLarge(type, length: type.maxPayload + 1, limit: type.maxPayload)) {
                try decoder.next()
            }
        }
        var decoder = FrameDecoder()
        decoder.append(contentsOf: [0x02, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: WireError.frameTooLarge(.offer, length: 0xFFFF_FFFF, limit: 16 << 20)) { try decoder.next() }
    }

    @Test func refusesUnknownTypesAndTruncation() throws {
        var decoder = FrameDecoder()
        decoder.append(contentsOf: [0x47, 0x45, 0x54, 0x20, 0x2F])  // "GET /"
        #expect(throws: WireError.unknownFrameType(0x47)) { try decoder.next() }

        var truncated = FrameDecoder()
        truncated.append(contentsOf: FrameEncoder.encode(.hello(Hello(name: "x"))).dropLast())
        #expect(try truncated.next() == nil)
        #expect(throws: WireError.truncated(bufferedBytes: 11)) { try truncated.finish() }
    }

    @Test func refusesMalformedPayloads() {
        let cases: [(String, [UInt8])] = [
            ("HELLO with trailing bytes", hex("01 0000000b 53485231 01 04 6465736b ff")),
            ("HELLO with invalid UTF-8", hex("01 00000008 53485231 01 02 c328")),
            ("HELLO with a NUL", hex("01 00000008 53485231 01 02 6100")),
            ("HELLO with an escape character", hex("01 00000008 53485231 01 02 611b")),
            ("HELLO with an empty name", hex("01 00000006 53485231 01 00")),
            ("DECISION with an unknown code", hex("03 00000003 09 0000")),
            ("DATA with no bytes", hex("04 00000004 00000000")),
            ("FILE_END too short", hex("05 00000005 00000000 00")),
            ("RECEIPT whose count cannot fit", hex("06 00000004 00010000")),
            ("OFFER whose entry count cannot fit", hex("02 0000000c 00001000 0000000000000000")),
            ("OFFER with an unknown kind", hex("02 00000028 00000001 0000000000000000 09 0001 61 01a4 0000000000000000 00000000 0000000000000000 0000 00")),
        ]
        for (name, bytes) in cases {
            var decoder = FrameDecoder()
            decoder.append(contentsOf: bytes)
            #expect(throws: WireError.self, "\(name)") { try decoder.next() }
        }
    }

    @Test func refusesVersionsItDoesNotSpeak() {
        var decoder = FrameDecoder()
        decoder.append(contentsOf: hex("01 00000007 53485231 02 01 78"))
        #expect(throws: WireError.unsupportedVersion("version 2; this share speaks version 1")) { try decoder.next() }
        var magic = FrameDecoder()
        magic.append(contentsOf: hex("01 00000007 53534831 01 01 78"))
        #expect(throws: WireError.unsupportedVersion("not a share HELLO")) { try magic.next() }
    }

    @Test func refusesAnOfferThatBreaksAPathRule() throws {
        var writer: [UInt8] = []
        // Hand-encode an entry with "../x" (the encoder only takes validated manifests).
        var payload: [UInt8] = [0, 0, 0, 1] + [UInt8](repeating: 0, count: 8)
        payload += [1, 0, 4] + Array("../x".utf8) + [0x01, 0xA4] + [UInt8](repeating: 0, count: 8 + 4 + 8) + [0, 0, 0]
        FrameEncoder.appendHeader(.offer, length: payload.count, to: &writer)
        writer += payload
        var decoder = FrameDecoder()
        decoder.append(contentsOf: writer)
        #expect(throws: WireError.invalidOffer(.invalidPath(path: "../x", problem: .dotDotComponent))) {
            try decoder.next()
        }
    }

    @Test func refusesAnOfferWithMoreEntriesThanTheLimitBeforeReading() {
        var decoder = FrameDecoder(limits: ManifestLimits(maxEntries: 2))
        decoder.append(contentsOf: hex("02 0000000c 00000003 0000000000000000"))
        #expect(throws: WireError.invalidOffer(.tooManyEntries(count: 3, limit: 2))) { try decoder.next() }
    }
}
