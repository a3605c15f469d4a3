import Foundation
import ShareKit
import ShareTestSupport
import Testing
import TypeRegistry

/// A receiver reached at 127.0.0.1 is compressed to by how its connection drains, not by its
/// address: through a slow tunnel (the fault proxy, throttled, standing in for `ssh -L` to a
/// distant machine) text travels compressed; straight to a receiver next door it travels raw.
@Suite(.serialized) struct CompressionToThisMachineTests {
    /// Decisions every chunk, so that a few MiB are enough to decide.
    static let quick = CompressionSettings(decisionBytes: 1 << 20)
    /// The tunnel's rate: 4 MB/s, so that raw text would take about two seconds.
    static let tunnelBytesPerSecond = 4_000_000
    static let fileBytes = 8 << 20

    func sender(in dir: TemporaryDirectory) throws -> TestSender {
        var sender = try TestSender(in: dir)
        sender.options.compression = Self.quick
        sender.options.compressedTypes = CompressedTypes(registry: TypeRegistry())
        return sender
    }

    func writeText(in dir: TemporaryDirectory) -> String {
        let path = dir.at("server.log")
        #expect(FileManager.default.createFile(atPath: path, contents: Data(SampleBytes.text(count: Self.fileBytes, seed: 11))))
        return path
    }

    @Test func textThroughASlowTunnelOnLoopbackTravelsCompressed() async throws {
        let dir = TemporaryDirectory("zstd-tunnel")
        let harness = try ReceiverHarness(in: dir)
        let path = writeText(in: dir)
        let proxy = try FaultProxy(toHost: "127.0.0.1", port: Int(harness.receiver.port))
        defer { proxy.stop() }
        proxy.setRate(Self.tunnelBytesPerSecond, .upstream)

        let report = try await sender(in: dir).send([path], toEndpoint: proxy.endpoint)

        let statistics = try #require(report.compression, "ZSTD was in use")
        #expect(statistics.compressedChunks > 0, "\(statistics)")
        #expect(statistics.payloadBytes < UInt64(Self.fileBytes) * 3 / 4, "\(statistics.payloadBytes) bytes on the wire")
        #expect(proxy.bytesForwarded(.upstream) < Self.fileBytes * 3 / 4, "what the tunnel carried")
        #expect(hexDigest(of: harness.destination + "/server.log") == hexDigest(of: path))
    }

    /// A receiver next door that is starved of CPU (the machine busy with other work, as when the
    /// suites between simulated hosts run beside this one) lets bytes wait in the socket as a
    /// distant one does, and is then rightly compressed to; so the send is tried up to three times,
    /// and one of them must travel raw. A receiver next door judged distant every time fails.
    @Test func textStraightToAReceiverOnThisMachineTravelsRaw() async throws {
        let dir = TemporaryDirectory("zstd-next-door")
        let harness = try ReceiverHarness(in: dir)
        let path = writeText(in: dir)

        var tries: [CompressionStatistics] = []
        for _ in 0..<3 {
            let report = try await sender(in: dir).send([path], to: harness)
            let statistics = try #require(report.compression, "ZSTD was in use")
            tries.append(statistics)
            if statistics.compressedChunks == 0 { break }
        }
        let raw = try #require(tries.last)
        #expect(raw.compressedChunks == 0, "\(tries)")
        #expect(raw.payloadBytes == UInt64(Self.fileBytes))
        #expect(hexDigest(of: harness.destination + "/server.log") == hexDigest(of: path))
    }
}
