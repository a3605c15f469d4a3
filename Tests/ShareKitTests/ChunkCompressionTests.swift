import ShareKit
import ShareTestSupport
import ShareWire
import Testing
import TypeRegistry

/// The DATA path's compressor and decompressor together, as the sender and receiver use them.
@Suite struct ChunkCompressionTests {
    static let types = CompressedTypes(registry: TypeRegistry())
    static let chunkSize = 256 << 10

    /// A file cut into DATA chunks by `compressor`, as the sender's reader thread would.
    static func send(_ bytes: [UInt8], path: String, fileIndex: UInt32 = 0, through compressor: ChunkCompressor) -> [DataChunk] {
        compressor.startFile(path: path)
        return stride(from: 0, to: bytes.count, by: chunkSize).map { start in
            let piece = Array(bytes[start..<min(start + chunkSize, bytes.count)])
            return compressor.chunk(fileIndex: fileIndex, offset: UInt64(start), bytes: piece)
        }
    }

    /// The file the receiver writes from `chunks`.
    static func receive(_ chunks: [DataChunk]) throws -> [UInt8] {
        let decompressor = ChunkDecompressor()
        var file: [UInt8] = []
        for chunk in chunks {
            #expect(Int(chunk.offset) == file.count)
            file += try decompressor.fileBytes(of: chunk)
        }
        return file
    }

    static func encodings(_ chunks: [DataChunk]) -> (zstd: Int, raw: Int) {
        let zstd = chunks.filter { if case .zstd = $0.encoding { true } else { false } }.count
        return (zstd, chunks.count - zstd)
    }

    @Test func textIsCompressedAndComesBackExactly() throws {
        let text = SampleBytes.text(count: 1 << 20)
        let compressor = ChunkCompressor(types: Self.types, pace: LinkPace())
        let chunks = Self.send(text, path: "src/main.swift", through: compressor)
        #expect(Self.encodings(chunks).raw == 0)
        #expect(try Self.receive(chunks) == text)
        let statistics = compressor.statistics
        #expect(statistics.fileBytes == UInt64(text.count))
        #expect(statistics.ratio < 0.5, "ratio \(statistics.ratio)")
    }

    @Test func compressedChunksSurviveTheWire() throws {
        let text = SampleBytes.text(count: 1 << 20)
        let chunks = Self.send(text, path: "notes.txt", through: ChunkCompressor(types: Self.types, pace: LinkPace()))
        var decoder = FrameDecoder(capacity: 1 << 16)
        var received: [DataChunk] = []
        for chunk in chunks {
            decoder.append(contentsOf: FrameEncoder.encode(.data(chunk)))
            if case .data(let decoded) = try decoder.next() { received.append(decoded) }
        }
        #expect(received == chunks)
        #expect(try Self.receive(received) == text)
    }

    @Test func incompressibleBytesGoRawAndTheRestOfTheFileIsNotTried() throws {
        let random = SampleBytes.random(count: 2 << 20)
        let compressor = ChunkCompressor(types: Self.types, pace: LinkPace())
        let chunks = Self.send(random, path: "data.bin", through: compressor)
        #expect(Self.encodings(chunks).zstd == 0)
        #expect(try Self.receive(chunks) == random)
        // Only the first chunk was a sample; the others were not compressed at all.
        #expect(compressor.statistics.samplesRefused == 1)
    }

    @Test func aFileIsSampledAgainFurtherOn() throws {
        // 512 KiB of random bytes, then text: raw until `resampleBytes` after the refused sample.
        let file = SampleBytes.random(count: 512 << 10) + SampleBytes.text(count: 2 << 20)
        let settings = CompressionSettings(resampleBytes: 1 << 20)
        let compressor = ChunkCompressor(settings: settings, types: Self.types, pace: LinkPace())
        let chunks = Self.send(file, path: "mixed.dat", through: compressor)
        let kinds = chunks.map { if case .zstd = $0.encoding { "z" } else { "r" } }.joined()
        // Chunk 0 refused: 1 is raw without trying; 2-5 are past 256 KiB + 1 MiB, and text.
        #expect(kinds == "rrrrrzzzzz" || kinds == "rrrrzzzzzz", "\(kinds)")
        #expect(try Self.receive(chunks) == file)
    }

    @Test func filesOfCompressedTypesAreNeverTried() throws {
        let text = SampleBytes.text(count: 512 << 10)
        let compressor = ChunkCompressor(types: Self.types, pace: LinkPace())
        #expect(Self.encodings(Self.send(text, path: "album/photo.jpg", through: compressor)).zstd == 0)
        #expect(Self.encodings(Self.send(text, path: "album/notes.txt", fileIndex: 1, through: compressor)).raw == 0)
        #expect(compressor.statistics.filesSkippedByType == 1)
        #expect(compressor.statistics.samplesRefused == 0)
        // Without a type rule the name does not matter.
        let untyped = ChunkCompressor(types: nil, pace: LinkPace())
        #expect(Self.encodings(Self.send(text, path: "photo.jpg", through: untyped)).raw == 0)
    }

    @Test func turnedOffEverythingIsRaw() throws {
        let text = SampleBytes.text(count: 512 << 10)
        let compressor = ChunkCompressor(settings: .off, types: Self.types, pace: LinkPace())
        let chunks = Self.send(text, path: "notes.txt", through: compressor)
        #expect(Self.encodings(chunks).zstd == 0)
        #expect(chunks.map(\.bytes).joined().elementsEqual(text))
        #expect(CompressionSettings.off.helloFeatures.isEmpty && CompressionSettings().helloFeatures == .zstd)
    }

    @Test func tinyChunksAndChunksThatDoNotShrinkGoRaw() throws {
        let compressor = ChunkCompressor(types: nil, pace: LinkPace())
        compressor.startFile(path: "a.txt")
        #expect(compressor.chunk(fileIndex: 0, offset: 0, bytes: Array("aaaaaaaa".utf8)).encoding == .raw)
        compressor.startFile(path: "b.txt")
        let small = SampleBytes.random(count: 200)
        #expect(compressor.chunk(fileIndex: 1, offset: 0, bytes: small) == DataChunk(fileIndex: 1, offset: 0, bytes: small))
        compressor.startFile(path: "c.txt")
        let repeated = [UInt8](repeating: 0x41, count: 100)
        let chunk = compressor.chunk(fileIndex: 2, offset: 0, bytes: repeated)
        #expect(chunk.encoding == .zstd(rawLength: 100) && chunk.bytes.count + 4 < 100)
    }

    @Test func aSlowLinkRaisesTheLevel() {
        let pace = LinkPace()
        let settings = CompressionSettings(decisionBytes: 256 << 10, warmUpWireBytes: 0)
        let compressor = ChunkCompressor(settings: settings, types: nil, pace: pace)
        compressor.startFile(path: "log.txt")
        for index in 0..<12 {
            let chunk = compressor.chunk(fileIndex: 0, offset: UInt64(index * Self.chunkSize), bytes: SampleBytes.text(count: Self.chunkSize, seed: UInt64(index)))
            // A 50 kB/s link: each byte takes 20 µs to leave, far more than zstd takes on a busy machine.
            pace.wrote(bytes: chunk.bytes.count, in: .microseconds(20 * chunk.bytes.count))
        }
        #expect(compressor.statistics.choice == .level(9))
    }

    @Test func aLinkFasterThanCompressionGetsRawBytesAndAProbeNowAndThen() throws {
        let pace = LinkPace()
        let settings = CompressionSettings(decisionBytes: 256 << 10, warmUpWireBytes: 0, probeBytes: 3 << 20)
        let compressor = ChunkCompressor(settings: settings, types: nil, pace: pace)
        compressor.startFile(path: "log.txt")
        var chunks: [DataChunk] = []
        for index in 0..<64 {
            let chunk = compressor.chunk(fileIndex: 0, offset: UInt64(index * Self.chunkSize), bytes: SampleBytes.text(count: Self.chunkSize, seed: UInt64(index)))
            // The network takes everything at once.
            pace.wrote(bytes: chunk.bytes.count, in: .zero)
            chunks.append(chunk)
        }
        #expect(compressor.statistics.choice == .raw)
        let later = Self.encodings(Array(chunks.suffix(32)))
        #expect(later.raw >= 2 * later.zstd && later.zstd > 0, "\(later)")
    }

    @Test func aBrokenZstdChunkIsAProtocolViolationThatSaysWhere() throws {
        let decompressor = ChunkDecompressor()
        let good = ZstdSample.frame
        let cases: [DataChunk] = [
            DataChunk(fileIndex: 3, offset: 1024, encoding: .zstd(rawLength: 65), bytes: good),
            DataChunk(fileIndex: 3, offset: 1024, encoding: .zstd(rawLength: 64), bytes: Array(good.dropLast())),
            DataChunk(fileIndex: 3, offset: 1024, encoding: .zstd(rawLength: 64), bytes: good + [0]),
            DataChunk(fileIndex: 3, offset: 1024, encoding: .zstd(rawLength: 64), bytes: Array("not zstd".utf8)),
        ]
        for chunk in cases {
            #expect {
                try decompressor.fileBytes(of: chunk)
            } throws: { error in
                guard let error = error as? PeerError else { return false }
                return error.code == .protocolViolation && error.message.contains("file 3 at offset 1024")
            }
        }
        #expect(try decompressor.fileBytes(of: DataChunk(fileIndex: 3, offset: 1024, encoding: .zstd(rawLength: 64), bytes: good)).count == 64)
    }

    @Test func rawChunksPassThrough() throws {
        let bytes = SampleBytes.random(count: 1000)
        #expect(try ChunkDecompressor().fileBytes(of: DataChunk(fileIndex: 0, offset: 0, bytes: bytes)) == bytes)
    }
}

/// docs/PROTOCOL.md Appendix A: 64 bytes "a" as a 16-byte zstd frame.
enum ZstdSample {
    static let frame: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0x20, 0x40, 0x3D, 0x00, 0x00, 0x08, 0x61, 0x01, 0x00, 0x94, 0x80, 0x10]
}
