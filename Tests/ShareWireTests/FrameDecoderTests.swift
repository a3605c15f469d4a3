import ShareDocuments
import ShareWire
import Testing

@Suite struct FrameDecoderTests {
    /// A conversation's worth of frames, including large DATA frames.
    static let frames: [Frame] = {
        var frames: [Frame] = GoldenVectorTests.frames.map(\.1)
        frames.insert(.hello(Hello(name: "laptop ✓")), at: 0)
        frames.append(.data(DataChunk(fileIndex: 0, offset: 0, bytes: Array(repeating: 7, count: 3))))
        frames.append(.fileEnd(fileIndex: 0, sha256: Array(repeating: 1, count: 32)))
        frames.append(.data(DataChunk(fileIndex: 1, offset: 3, bytes: (0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })))
        frames.append(.receipt(Receipt(items: [ReceiptItem(.placed, "~/Downloads/a.txt"), ReceiptItem(.imported, "ScaryBugs")])))
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
            .data(
                DataChunk(
                    fileIndex: UInt32(index), offset: UInt64(index) << 40,
                    bytes: (0..<FrameType.maxDataBytes).map { UInt8(truncatingIfNeeded: $0 &+ index) }))
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

    @Test func readsLargePayloadsStraightIntoTheirArraysInOddReads() throws {
        // Large DATA frames (raw and zstd-marked) between small frames, read in sizes that split
        // headers, payloads and frames everywhere (byte by byte over payloads of the smallest size
        // read this way, which keeps the test short).
        func stream(largest: Int) -> (frames: [Frame], bytes: [UInt8]) {
            var frames: [Frame] = []
            for index in 0..<3 {
                let count = index == 1 ? FrameDecoder.directPayloadMinimum : largest - index
                let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) }
                let encoding: DataEncoding = index == 2 ? .zstd(rawLength: 9) : .raw
                frames.append(
                    .data(DataChunk(fileIndex: UInt32(index), offset: UInt64(index) << 33, encoding: encoding, bytes: bytes)))
                frames.append(.fileEnd(fileIndex: UInt32(index), sha256: Array(repeating: UInt8(index), count: 32)))
            }
            return (frames, frames.flatMap(FrameEncoder.encode))
        }
        let small = stream(largest: FrameDecoder.directPayloadMinimum + 2)
        let large = stream(largest: FrameType.maxDataBytes)
        let runs: [(readSize: Int, stream: (frames: [Frame], bytes: [UInt8]))] = [
            (1, small), (13, small), (4_099, large), (262_144, large), (4_194_304, large),
        ]
        for (readSize, (frames, bytes)) in runs {
            var decoder = FrameDecoder(capacity: 64, payloadBuffers: PayloadBuffers())
            var offset = 0
            var decoded: [Frame] = []
            while offset < bytes.count {
                let count = decoder.readInto(minimumSpace: 1) { tail in
                    let n = min(tail.count, bytes.count - offset, readSize)
                    bytes[offset..<(offset + n)].withUnsafeBytes { tail.copyMemory(from: $0) }
                    return n
                }
                offset += count
                while let frame = try decoder.next() { decoded.append(frame) }
            }
            try decoder.finish()
            #expect(decoded == frames, "read size \(readSize)")
        }
        let stream = large.bytes
        // Cut inside a large payload: the stream ends mid-frame.
        var decoder = FrameDecoder()
        decoder.append(contentsOf: stream.prefix(100_000))
        while try decoder.next() != nil {}
        #expect(throws: WireError.truncated(bufferedBytes: 100_000)) { try decoder.finish() }
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
        #expect(throws: WireError.truncated(bufferedBytes: 16)) { try truncated.finish() }
    }

    @Test func refusesMalformedPayloads() {
        let cases: [(String, [UInt8])] = [
            ("HELLO with trailing bytes", hex("01 00000010 53485231 02 04 6465736b 00000000 00 ff")),
            ("HELLO without features", hex("01 0000000a 53485231 02 04 6465736b")),
            ("HELLO with invalid UTF-8", hex("01 0000000d 53485231 02 02 c328 00000000 00")),
            ("HELLO with a NUL", hex("01 0000000d 53485231 02 02 6100 00000000 00")),
            ("HELLO with an escape character", hex("01 0000000d 53485231 02 02 611b 00000000 00")),
            ("HELLO with an empty name", hex("01 0000000b 53485231 02 00 00000000 00")),
            ("HELLO with an unknown flag", hex("01 0000000c 53485231 02 01 78 00000000 08")),
            ("DECISION with an unknown code", hex("03 00000007 09 0000 00000000")),
            ("DECISION refusing with HAVE records", hex("03 00000007 01 0000 00000001")),
            ("DATA with no bytes", hex("04 0000000d 00000000 0000000000000000 00")),
            ("DATA with an unknown encoding", hex("04 0000000e 00000000 0000000000000000 02 aa")),
            ("DATA, zstd of 0 bytes", hex("04 00000012 00000000 0000000000000000 01 00000000 aa")),
            ("DATA, zstd of more than 1 MiB", hex("04 00000012 00000000 0000000000000000 01 00100001 aa")),
            ("FILE_END too short", hex("05 00000005 00000000 00")),
            ("RECEIPT whose count cannot fit", hex("06 00000004 00010000")),
            ("RECEIPT cut in an item", hex("06 00000008 00000001 01 0005 61")),
            ("OFFER with no entries", hex("02 0000000c 00001000 0000000000000000")),
            ("OFFER with an unknown kind", hex("02 00000028 00000001 0000000000000000 09 0001 61 01a4 0000000000000000 00000000 0000000000000000 0000 00")),
            ("OFFER with more entries than it announces", hex("02 00000028 00000000 0000000000000000 01 0001 61 01a4 0000000000000000 00000000 0000000000000000 0000 00")),
            ("OFFER with a note cut short", hex("02 0000002a 00000001 0000000000000005 04 0001 61 01a4 0000000000000000 00000000 0000000000000005 0000 00 6869")),
            ("ENTRIES with none", hex("0b 00000000")),
            ("VERIFY with an unknown result", hex("09 00000001 03")),
            ("HAVE with no records", hex("0a 00000004 00000000")),
            ("HAVE whose count does not match", hex("0a 00000005 00000001 00")),
            ("PAIR with a payload", hex("08 00000001 00")),
        ]
        for (name, bytes) in cases {
            var decoder = FrameDecoder()
            decoder.append(contentsOf: bytes)
            #expect(throws: WireError.self, "\(name)") { try decoder.next() }
        }
    }

    @Test func refusesVersionsItDoesNotSpeakAndSaysWhoMustUpdate() {
        // The HELLO share 0.1 (protocol 1) sends.
        var old = FrameDecoder()
        old.append(contentsOf: hex("01 0000000a 53485231 01 04 6465736b"))
        #expect(throws: WireError.unsupportedVersion(peerVersion: 1)) { try old.next() }
        let refusal = WireError.unsupportedVersion(peerVersion: 1).peerError(from: "receiver")
        #expect(refusal.code == .unsupportedVersion)
        #expect(refusal.message == "this receiver speaks share protocol 2 and the sender speaks protocol 1: update share on the sender")
        #expect(WireError.unsupportedVersion(peerVersion: 1).description.contains("older share (protocol 1)"))
        var magic = FrameDecoder()
        magic.append(contentsOf: hex("01 00000007 53534831 02 01 78"))
        #expect(throws: WireError.unsupportedVersion(peerVersion: nil)) { try magic.next() }
    }

    @Test func refusesAnOfferThatBreaksAPathRule() throws {
        var writer: [UInt8] = []
        // Entries are checked as a whole once the offer is complete, by the session.
        writer = FrameEncoder.encode(.offer(OfferStart(entryCount: 1, totalBytes: 0), entries: [
            ManifestEntry(kind: .file, path: "../x", mode: 0o644)
        ]))
        var decoder = FrameDecoder()
        decoder.append(contentsOf: writer)
        guard case .offer(_, let entries)? = try decoder.next() else { Issue.record("no offer"); return }
        #expect(throws: ManifestError.invalidPath(path: "../x", problem: .dotDotComponent)) {
            try Manifest(entries: entries, declaredTotal: 0)
        }
    }

    @Test func refusesAnOfferWithMoreEntriesThanTheLimitBeforeReading() {
        var decoder = FrameDecoder(limits: ManifestLimits(maxEntries: 2))
        decoder.append(contentsOf: hex("02 0000000c 00000003 0000000000000000"))
        #expect(throws: WireError.invalidOffer(.tooManyEntries(count: 3, limit: 2))) { try decoder.next() }
    }
}
