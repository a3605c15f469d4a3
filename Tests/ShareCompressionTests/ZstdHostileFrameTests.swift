import ShareCompression
import ShareTestSupport
import Testing

/// Frames a hostile sender could put in a DATA payload: each is refused with its reason, and
/// nothing larger than the announced length is ever produced.
@Suite struct ZstdHostileFrameTests {
    static let text = SampleBytes.text(count: 100_000)
    static let frame = ZstdCompressor().compress(text, level: 3)!

    static func handMadeFrame(windowLog: Int = 17, blocks: [[UInt8]]) -> [UInt8] {
        HandMadeZstd.frame(windowLog: windowLog, blocks: blocks)
    }

    static func rleBlock(count: Int, last: Bool) -> [UInt8] { HandMadeZstd.rleBlock(count: count, last: last) }

    static func refusal(_ frame: [UInt8], expectedLength: Int) -> ZstdFrameError? {
        do {
            let bytes = try ZstdDecompressor().decompress(frame, expectedLength: expectedLength)
            Issue.record("accepted a hostile frame as \(bytes.count) bytes")
            return nil
        } catch {
            return error
        }
    }

    @Test func everyTruncationIsRefused() throws {
        let decompressor = ZstdDecompressor()
        for length in 0..<Self.frame.count {
            #expect(throws: ZstdFrameError.self, "first \(length) bytes") {
                try decompressor.decompress(Array(Self.frame.prefix(length)), expectedLength: Self.text.count)
            }
        }
        // The same context still decodes a whole frame afterwards.
        #expect(try decompressor.decompress(Self.frame, expectedLength: Self.text.count) == Self.text)
    }

    @Test func aDeclaredSizeOtherThanTheAnnouncedLengthIsRefused() {
        for announced in [1, Self.text.count - 1, Self.text.count + 1, 1 << 20] {
            #expect(
                Self.refusal(Self.frame, expectedLength: announced)
                    == .declaredLength(UInt64(Self.text.count), expected: announced))
        }
    }

    @Test func aHeaderDeclaringAHugeSizeIsRefusedBeforeDecompressing() throws {
        // Single segment with an 8-byte content size of 2^40, then one RLE block.
        var frame: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0xE0]
        frame += withUnsafeBytes(of: (UInt64(1) << 40).littleEndian, Array.init)
        frame += Self.rleBlock(count: 100, last: true)
        #expect(Self.refusal(frame, expectedLength: 100) == .declaredLength(1 << 40, expected: 100))
    }

    @Test func aBombWithoutADeclaredSizeStopsAtTheAnnouncedLength() {
        // 8 KiB that would expand to 256 MiB.
        let bomb = HandMadeZstd.bomb
        #expect(bomb.count < 9_000)
        #expect(Self.refusal(bomb, expectedLength: 1 << 20) == .longerThanExpected(expected: 1 << 20))
    }

    @Test func aFrameShorterThanAnnouncedIsRefused() throws {
        let frame = Self.handMadeFrame(blocks: [Self.rleBlock(count: 1000, last: true)])
        #expect(Self.refusal(frame, expectedLength: 1001) == .shorterThanExpected(1000, expected: 1001))
        #expect(try ZstdDecompressor().decompress(frame, expectedLength: 1000) == Array(repeating: 0x41, count: 1000))
    }

    @Test func aFrameWhoseContentBetraysItsDeclaredSizeIsRefused() {
        // Declares 1,000 bytes (single segment, 2-byte size field holds size - 256) but holds 2,000.
        let declared = 1000 - 256
        let frame: [UInt8] =
            [0x28, 0xB5, 0x2F, 0xFD, 0x60, UInt8(declared & 0xFF), UInt8(declared >> 8)]
            + Self.rleBlock(count: 2000, last: true)
        #expect(Self.refusal(frame, expectedLength: 1000) != nil)
    }

    @Test func aLargeDeclaredWindowAllocatesNothingMore() throws {
        // A 128 MiB window (what a streaming compressor with --long=27 writes), 64 KiB of content.
        let frame = Self.handMadeFrame(windowLog: 27, blocks: [Self.rleBlock(count: 64 << 10, last: true)])
        let decompressor = ZstdDecompressor()
        #expect(try decompressor.decompress(frame, expectedLength: 64 << 10).count == 64 << 10)
        #expect(decompressor.memoryBytes < 256 << 10, "\(decompressor.memoryBytes) bytes")
    }

    @Test func twoFramesOrTrailingGarbageAreRefused() {
        let half = ZstdCompressor().compress(Array(Self.text.prefix(50_000)), level: 1)!
        let rest = ZstdCompressor().compress(Array(Self.text.suffix(50_000)), level: 1)!
        #expect(Self.refusal(half + rest, expectedLength: 50_000) == .trailingBytes(rest.count))
        #expect(Self.refusal(Self.frame + [0], expectedLength: Self.text.count) == .trailingBytes(1))
        // A skippable frame after the data frame is another frame too.
        let skippable: [UInt8] = [0x50, 0x2A, 0x4D, 0x18, 0x01, 0x00, 0x00, 0x00, 0x00]
        #expect(Self.refusal(Self.frame + skippable, expectedLength: Self.text.count) == .trailingBytes(9))
    }

    @Test func skippableLegacyAndForeignFramesAreNotZstd() {
        let skippable: [UInt8] = [0x50, 0x2A, 0x4D, 0x18, 0x04, 0x00, 0x00, 0x00, 1, 2, 3, 4]
        #expect(Self.refusal(skippable + Self.frame, expectedLength: Self.text.count) == .notZstd)
        var legacy = Self.frame
        legacy[0] = 0x27  // the v0.7 magic number
        #expect(Self.refusal(legacy, expectedLength: Self.text.count) == .notZstd)
        #expect(Self.refusal([0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0], expectedLength: 10) == .notZstd)  // gzip
        #expect(Self.refusal([0x28, 0xB5], expectedLength: 10) == .notZstd)
    }

    @Test func aReservedBlockTypeIsDamage() {
        let frame = Self.handMadeFrame(blocks: [[0x07, 0x00, 0x00]])  // type 3, last
        guard case .damaged(let reason) = Self.refusal(frame, expectedLength: 1) else {
            Issue.record("not reported as damaged")
            return
        }
        #expect(!reason.isEmpty)
    }

    @Test func garbageAfterTheMagicNumberIsRefusedOrDecodedWithinBounds() {
        var random = SeededRandom(seed: 13)
        let decompressor = ZstdDecompressor()
        var refused = 0
        for round in 0..<3000 {
            let count = Int(random.next() % 300)
            var frame: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]
            frame += (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let expected = 1 + Int(random.next() % 4096)
            do {
                let bytes = try decompressor.decompress(frame, expectedLength: expected)
                #expect(bytes.count == expected, "round \(round)")
            } catch {
                refused += 1
            }
        }
        #expect(refused > 2900)
    }

    @Test func bitFlipsInAValidFrameNeverYieldAnotherLength() {
        let decompressor = ZstdDecompressor()
        var random = SeededRandom(seed: 7)
        for _ in 0..<2000 {
            var frame = Self.frame
            let position = Int(random.next() % UInt64(frame.count))
            frame[position] ^= UInt8(1 << (random.next() % 8))
            if let bytes = try? decompressor.decompress(frame, expectedLength: Self.text.count) {
                #expect(bytes.count == Self.text.count)
            }
        }
    }

    @Test func refusalsExplainThemselves() {
        #expect(ZstdFrameError.declaredLength(5, expected: 3).description == "its zstd frame declares 5 bytes, but 3 were announced")
        #expect(ZstdFrameError.shorterThanExpected(2, expected: 3).description.contains("2 bytes"))
    }
}
