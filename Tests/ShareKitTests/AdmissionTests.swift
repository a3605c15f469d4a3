import Foundation
import ShareKit
import ShareTLS
import ShareTestSupport
import ShareTransport
import ShareWire
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One LAN host cannot lock everyone out (docs/SECURITY.md, "Admission"): a
/// real receiver on loopback against a flood from many addresses (127.0.1.x, 127.0.2.x: all of
/// 127/8 is this machine's), with real senders alongside.
@Suite(.serialized) struct AdmissionTests {
    static let flood = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Hosts/flood.py").path

    /// A TCP connection to `endpoint` from the loopback address `source`.
    func connect(to port: UInt16, from source: String) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &local.sin_addr)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0 && connected == 0, "connect from \(source): \(String(cString: strerror(errno)))")
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    /// Whether the receiver closed `fd` (a read ends) rather than keeping it open (the read times out).
    func wasClosed(_ fd: Int32, waiting seconds: Int) -> Bool {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, 0) == 0
    }

    func refusals(_ harness: ReceiverHarness, within timeout: Duration = .seconds(5)) -> [String] {
        var reasons: [String] = []
        while let outcome = harness.nextOutcome(timeout: reasons.isEmpty ? timeout : .milliseconds(300)) {
            switch outcome {
            case .refused(_, let reason): reasons.append(reason)
            case .failed(_, _, _, let failure, _): reasons.append(failure.description)
            default: break
            }
        }
        return reasons
    }

    @Test func aFloodFromManyAddressesLocksNeitherAnUnverifiedNorAVerifiedSenderOut() async throws {
        let dir = TemporaryDirectory("admission-flood")
        let friend = try Identity.loadOrCreate(in: dir.at("friend-config"))
        let harness = try ReceiverHarness(in: dir, configure: { $0.configDirectory = dir.at("receiver-config") })
        try TrustStore.update(in: dir.at("receiver-config")) { $0.pin(friend.fingerprint, name: "friend", verification: .code) }
        let port = harness.receiver.port

        // 300 idle connections from 60 addresses and 8 that drip a TLS record byte by byte, every
        // one reopened the moment the receiver drops it.
        let flood = try HostProcess(
            label: "flood", executable: "/usr/bin/python3",
            arguments: [Self.flood, "--port", String(port), "--sources", "60", "--per-source", "5", "--drip", "8", "--for", "25"],
            environment: ProcessInfo.processInfo.environment)
        defer { flood.terminate() }
        _ = try await flood.waitForLine("holding", within: .seconds(20)) { $0.hasPrefix("holding") }
        try await Task.sleep(for: .seconds(2))

        FileTree.writeFile(dir.at("stranger.bin"), size: 2_000_000, seed: 1)
        FileTree.writeFile(dir.at("verified.bin"), size: 2_000_000, seed: 2)
        var friendSender = TestSender(identity: friend)
        friendSender.options.deviceName = "friend"
        async let stranger = TestSender(in: dir).send([dir.at("stranger.bin")], to: harness)
        async let verified = friendSender.send([dir.at("verified.bin")], to: harness)
        let (strangerReport, verifiedReport) = try await (stranger, verified)
        #expect(strangerReport.files.first?.sha256 == hexDigest(of: dir.at("stranger.bin")))
        #expect(verifiedReport.files.first?.sha256 == hexDigest(of: dir.at("verified.bin")))
        #expect(hexDigest(of: dir.at("received/stranger.bin")) == hexDigest(of: dir.at("stranger.bin")))
        #expect(hexDigest(of: dir.at("received/verified.bin")) == hexDigest(of: dir.at("verified.bin")))

        flood.terminate()
        let (_, summary) = try await flood.waitForLine("opened", within: .seconds(10)) { $0.hasPrefix("opened") }
        let closed = Int(summary.split(separator: " ").last ?? "") ?? 0
        #expect(closed >= 308 - 128, "the flood filled the table and lost connections to it: \(summary)")
    }

    @Test func aSourceOverItsShareLosesItsOldestWaitingConnectionAndIsToldWhy() async throws {
        let dir = TemporaryDirectory("admission-source")
        let harness = try ReceiverHarness(in: dir, configure: { $0.maxConnectionsPerAddress = 3 })
        // The first connection got through TLS and HELLO: when it is dropped, it hears why.
        let first = try HostileSender(in: dir).connect(harness.endpoint)
        try first.send(.hello(Hello(name: "early")))
        _ = try first.receive()  // the receiver's HELLO
        let idle = try (0..<2).map { _ in try connect(to: harness.receiver.port, from: "127.0.0.1") }
        defer { idle.forEach { close($0) } }
        try await Task.sleep(for: .milliseconds(200))
        let newest = try connect(to: harness.receiver.port, from: "127.0.0.1")
        defer { close(newest) }
        let error = HostileSender.firstError(from: first)
        first.close()
        #expect(error?.code == .busy)
        #expect(error?.message.contains("too many connections waiting to make an offer, and dropped this one") == true)
        #expect(refusals(harness).contains { $0.contains("dropped this one to make room") })
        #expect(!wasClosed(newest, waiting: 1), "the newest connection is kept")

        // Another address is not touched by this one's excess.
        let other = try connect(to: harness.receiver.port, from: "127.0.3.1")
        defer { close(other) }
        let more = try connect(to: harness.receiver.port, from: "127.0.0.1")
        defer { close(more) }
        #expect(wasClosed(idle[0], waiting: 5), "127.0.0.1's oldest goes")
        #expect(!wasClosed(other, waiting: 1))
    }

    @Test func aBusyReceiverSaysSoBeforeTheOfferAndKeepsAPlaceForVerifiedSenders() async throws {
        let dir = TemporaryDirectory("admission-busy")
        let friend = try Identity.loadOrCreate(in: dir.at("friend-config"))
        let harness = try ReceiverHarness(
            in: dir,
            configure: {
                $0.configDirectory = dir.at("receiver-config")
                $0.maxConcurrentTransfers = 1
                $0.reservedTransfers = 1
            })
        try TrustStore.update(in: dir.at("receiver-config")) { $0.pin(friend.fingerprint, name: "friend", verification: .code) }

        // A transfer holds the only common place: accepted, then no data for a while.
        let holder = try HostileSender(in: dir).connect(harness.endpoint)
        defer { holder.close() }
        try holder.writeRaw(FrameEncoder.encode(.hello(Hello(name: "holder"))) + RawOffer.frame([.init(path: "slow.bin", size: 1000)]))
        _ = try holder.receive()  // HELLO
        guard case .decision(let accepted) = try holder.receive(), accepted.code == .accepted else {
            Issue.record("the holder's offer was not accepted")
            return
        }

        FileTree.writeText(dir.at("note.txt"), "hello")
        do {
            _ = try await TestSender(in: dir).send([dir.at("note.txt")], to: harness)
            Issue.record("an unverified sender got a place that was not free")
        } catch let error as SendError {
            #expect(error.outcome == "busy", "\(error)")
            #expect(error.description == "the receiver is busy with 1 transfer at once; try again in a minute", "\(error)")
        }
        var friendSender = TestSender(identity: friend)
        friendSender.options.deviceName = "friend"
        let report = try await friendSender.send([dir.at("note.txt")], to: harness)
        #expect(report.files.count == 1, "the verified sender used the reserved place")
    }
}
