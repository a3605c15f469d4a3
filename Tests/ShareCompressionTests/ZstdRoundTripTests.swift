import ShareCompression
import ShareTestSupport
import Testing

@Suite struct ZstdRoundTripTests {
    static let text = SampleBytes.text(count: 256 << 10)

    @Test(arguments: [ZstdCompressor.levels.lowerBound, -5, -1, 1, 3, 6, 9, 19])
    func everyLevelGivesBackTheSameBytes(level: Int) throws {
        let frame = try #require(ZstdCompressor().compress(Self.text, level: level))
        if level >= -5 { #expect(frame.count < Self.text.count / 2, "level \(level): \(frame.count) bytes") }
        #expect(try ZstdDecompressor().decompress(frame, expectedLength: Self.text.count) == Self.text)
    }

    @Test func higherLevelsCompressMore() throws {
        let compressor = ZstdCompressor()
        let fast = try #require(compressor.compress(Self.text, level: -5)).count
        let one = try #require(compressor.compress(Self.text, level: 1)).count
        let nine = try #require(compressor.compress(Self.text, level: 9)).count
        #expect(fast > one && one > nine, "sizes at -5, 1, 9: \(fast), \(one), \(nine)")
    }

    @Test func oneContextServesManyFramesAndLevels() throws {
        let compressor = ZstdCompressor()
        let decompressor = ZstdDecompressor()
        for index in 0..<40 {
            let input = index % 3 == 0 ? SampleBytes.random(count: 1 + index * 997, seed: UInt64(index)) : SampleBytes.text(count: 1 + index * 3001, seed: UInt64(index))
            let frame = try #require(compressor.compress(input, level: index % 7 - 2))
            #expect(try decompressor.decompress(frame, expectedLength: input.count) == input, "frame \(index)")
        }
    }

    @Test func incompressibleBytesDoNotFitUnderTheirOwnSize() throws {
        let random = SampleBytes.random(count: 1 << 20)
        let compressor = ZstdCompressor()
        #expect(compressor.compress(random, level: 3, limit: random.count - 5) == nil)
        // Without a limit it is still a valid frame, just not a smaller one.
        let frame = try #require(compressor.compress(random, level: 3))
        #expect(frame.count > random.count)
        #expect(try ZstdDecompressor().decompress(frame, expectedLength: random.count) == random)
        // The failed call left nothing behind for the next frame.
        let text = try #require(compressor.compress(Self.text, level: 3, limit: Self.text.count - 5))
        #expect(try ZstdDecompressor().decompress(text, expectedLength: Self.text.count) == Self.text)
    }

    @Test func framesDeclareTheirSizeAndCarryNoChecksum() throws {
        let frame = try #require(ZstdCompressor().compress(Array(repeating: UInt8(ascii: "a"), count: 64), level: 3))
        // Frame header descriptor: content size present (single segment), no checksum, no dictionary.
        #expect(frame[0..<4] == [0x28, 0xB5, 0x2F, 0xFD])
        #expect(frame[4] & 0x04 == 0, "no checksum flag")
        #expect(frame[4] & 0x20 != 0, "single segment: the content size is in the header")
        #expect(frame[5] == 64)
    }

    /// docs/PROTOCOL.md Appendix A: "DATA, zstd: 64 bytes "a" of file 1 at offset 64".
    @Test func decodesTheProtocolsGoldenVector() throws {
        let frame: [UInt8] = [
            0x28, 0xB5, 0x2F, 0xFD, 0x20, 0x40, 0x3D, 0x00, 0x00, 0x08, 0x61, 0x01, 0x00, 0x94, 0x80, 0x10,
        ]
        #expect(try ZstdDecompressor().decompress(frame, expectedLength: 64) == Array(repeating: UInt8(ascii: "a"), count: 64))
    }

    @Test func contextsStaySmall() throws {
        let decompressor = ZstdDecompressor()
        let input = SampleBytes.text(count: 1 << 20)
        let frame = try #require(ZstdCompressor().compress(input, level: 9))
        _ = try decompressor.decompress(frame, expectedLength: input.count)
        #expect(decompressor.memoryBytes < 256 << 10, "\(decompressor.memoryBytes) bytes")
    }
}
