import Foundation
import ShareDocuments
import ShareKit
import ShareTLS
import ShareTestSupport
import ShareTransport
import ShareWire
import Testing
import TypeRegistry

/// zstd-compressed DATA through the real sender and receiver on loopback (docs/PROTOCOL.md §8):
/// what compresses travels compressed and lands byte for byte, what does not (or what the type
/// registry knows is compressed) travels raw, a receiver without ZSTD gets raw data, a continued
/// transfer counts in file bytes, and hostile compressed chunks are refused with nothing placed.
@Suite struct CompressedTransferTests {
    /// Compression at a fixed level that never reconsiders it, so what is compressed does not
    /// depend on how fast loopback was this time; and to this machine, which share otherwise
    /// never compresses to.
    static let steady: CompressionSettings = {
        var settings = CompressionSettings(decisionBytes: .max)
        settings.thisMachineAsDistant = true
        return settings
    }()

    func sender(in dir: TemporaryDirectory, compression: CompressionSettings = steady) throws -> TestSender {
        var sender = try TestSender(in: dir)
        sender.options.compression = compression
        sender.options.compressedTypes = CompressedTypes(registry: TypeRegistry())
        return sender
    }

    func write(_ bytes: [UInt8], to path: String) {
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
    }

    @Test func textTravelsCompressedAndMediaRawAndEverythingLandsIntact() throws {
        let dir = TemporaryDirectory("zstd-mixed")
        let harness = try ReceiverHarness(in: dir)
        FileTree.makeFolder(dir.at("Mixed"))
        write(SampleBytes.text(count: 8 << 20, seed: 1), to: dir.at("Mixed/server.log"))
        write(SampleBytes.random(count: 4 << 20, seed: 2), to: dir.at("Mixed/random.bin"))
        // Compressible bytes, but the name says JPEG: never tried.
        write(SampleBytes.text(count: 2 << 20, seed: 3), to: dir.at("Mixed/photo.jpg"))
        write(SampleBytes.text(count: 40, seed: 4), to: dir.at("Mixed/tiny.txt"))

        let report = try sender(in: dir).send([dir.at("Mixed")], to: harness)

        for name in ["server.log", "random.bin", "photo.jpg", "tiny.txt"] {
            #expect(
                hexDigest(of: harness.destination + "/Mixed/" + name) == hexDigest(of: dir.at("Mixed/" + name)),
                "\(name) arrived intact")
        }
        guard let statistics = report.compression else {
            Issue.record("ZSTD was not in use between a sender and a receiver that both support it")
            return
        }
        #expect(statistics.compressedChunks == 8, "every chunk of the log")
        #expect(statistics.rawChunks == 4 + 2 + 1, "the random file, the JPEG and the tiny file")
        #expect(statistics.filesSkippedByType == 1)
        #expect(statistics.samplesRefused == 1, "the random file's first chunk is its sample")
        #expect(statistics.fileBytes == report.bytes)
        #expect(statistics.payloadBytes < (4 + 2 + 3) << 20, "the log takes less than 3 MiB on the wire")
        guard case .received(let transfer) = harness.nextOutcome() else {
            Issue.record("the receiver did not report a received transfer")
            return
        }
        #expect(transfer.files.map(\.sha256) == report.files.map(\.sha256))
        #expect(leftovers(harness.destination).filter { !$0.hasPrefix("Mixed") }.isEmpty)
    }

    @Test func aReceiverWithoutZstdGetsRawData() throws {
        let dir = TemporaryDirectory("zstd-old-receiver")
        let harness = try ReceiverHarness(in: dir, configure: { $0.decodesZstd = false })
        write(SampleBytes.text(count: 3 << 20, seed: 5), to: dir.at("notes.txt"))
        let report = try sender(in: dir).send([dir.at("notes.txt")], to: harness)
        #expect(report.compression == nil, "ZSTD is not in use: every DATA frame was raw")
        #expect(hexDigest(of: harness.destination + "/notes.txt") == hexDigest(of: dir.at("notes.txt")))
    }

    @Test func noCompressSendsRawDataToAReceiverThatDecodesZstd() throws {
        let dir = TemporaryDirectory("zstd-off")
        let harness = try ReceiverHarness(in: dir)
        write(SampleBytes.text(count: 3 << 20, seed: 6), to: dir.at("notes.txt"))
        let report = try sender(in: dir, compression: .off).send([dir.at("notes.txt")], to: harness)
        #expect(report.compression == nil)
        #expect(hexDigest(of: harness.destination + "/notes.txt") == hexDigest(of: dir.at("notes.txt")))
    }

    @Test func aStoppedCompressedTransferContinuesFromTheFileBytesTheReceiverHolds() async throws {
        let dir = TemporaryDirectory("zstd-resume")
        let harness = try ReceiverHarness(in: dir)
        write(SampleBytes.text(count: 24 << 20, seed: 7), to: dir.at("big.log"))
        let sender = try sender(in: dir)
        let prepared = try PreparedSend.scan([dir.at("big.log")])
        let endpoint = Endpoint(parsing: harness.endpoint)!

        var cut = sender.options
        cut.cutConnectionAfterBytes = 12 << 20
        await #expect(throws: SendError.self) {
            try await Sender.sendAsync(prepared, toFirstOf: [endpoint], identity: sender.identity, options: cut)
        }
        while let outcome = await harness.nextOutcome(timeout: .seconds(10)) {
            if case .failed = outcome { break }
        }
        let report = try await Sender.sendAsync(prepared, toFirstOf: [endpoint], identity: sender.identity, options: sender.options)
        #expect(report.resumedBytes > 0, "what arrived before the cut was kept")
        #expect(report.resumedBytes < 24 << 20)
        #expect(report.compression?.fileBytes == 24 << 20 - report.resumedBytes, "the rest, counted in file bytes")
        #expect((report.compression?.compressedChunks ?? 0) > 0)
        #expect(hexDigest(of: harness.destination + "/big.log") == hexDigest(of: dir.at("big.log")))
    }

    /// A hostile sender's zstd DATA for a 1 MiB file: refused with the reason, nothing placed.
    @Test(arguments: [
        ("wrong length", "its zstd frame declares 100000 bytes, but 100001 were announced"),
        ("bomb", "its zstd frame decompresses to more than the 1048576 bytes announced"),
        ("not negotiated", "raw DATA (zstd is not in use)"),
        ("garbage", "it is not a zstd frame"),
    ])
    func aHostileCompressedChunkIsRefused(_ label: String, _ reason: String) throws {
        let scene = try HostileScene("hostile-zstd")
        let text = SampleBytes.text(count: 100_000, seed: 8)
        let compressed = ChunkCompressor(settings: Self.steady, types: nil, pace: LinkPace())
            .chunk(fileIndex: 0, offset: 0, bytes: text)
        let chunk: DataChunk
        switch label {
        case "wrong length": chunk = DataChunk(fileIndex: 0, offset: 0, encoding: .zstd(rawLength: 100_001), bytes: compressed.bytes)
        case "bomb": chunk = DataChunk(fileIndex: 0, offset: 0, encoding: .zstd(rawLength: 1 << 20), bytes: HandMadeZstd.bomb)
        case "garbage": chunk = DataChunk(fileIndex: 0, offset: 0, encoding: .zstd(rawLength: 1000), bytes: Array(text.prefix(500)))
        default: chunk = compressed
        }
        #expect(compressed.encoding == .zstd(rawLength: 100_000))
        try scene.run {
            let connection = try HostileSender(in: scene.dir).connect(scene.harness.endpoint)
            defer { connection.close() }
            let features: HelloFeatures = label == "not negotiated" ? [] : .zstd
            try connection.writeRaw(
                FrameEncoder.encode(.hello(Hello(name: "zstd", features: features)))
                    + RawOffer.frame([.init(path: "bomb.txt", size: 1 << 20)]))
            guard case .hello(let hello) = try connection.receive() else {
                Issue.record("no HELLO")
                return
            }
            #expect(hello.features.contains(.zstd), "the receiver decodes zstd")
            _ = try connection.receive()  // DECISION
            try? connection.writeRaw(FrameEncoder.encode(.data(chunk)))
            let error = HostileSender.firstError(from: connection)
            #expect(error?.code == .protocolViolation, "\(label)")
            #expect(error?.message.contains(reason) == true, "\(label): \(error?.message ?? "no error")")
            #expect(scene.hostileOutcomeText().contains(reason))
        }
    }
}
