import Foundation
import ShareKit
import ShareTestSupport
import ShareTransport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The fault lab's proxy (ShareTestSupport.FaultProxy) between plain sockets and between a real
/// sender and receiver: it forwards exactly, cuts exactly, stalls, throttles, goes down, and a byte
/// it flips inside TLS is caught as an integrity failure, never stored.
@Suite(.serialized) struct FaultProxyTests {
    @Test func forwardsEveryByteBothWaysAndCountsThem() async throws {
        let server = try ByteServer(reply: FaultLabBytes.make(1_000_000, seed: 2))
        let proxy = try FaultProxy(toHost: "127.0.0.1", port: server.port)
        let sent = FaultLabBytes.make(2_500_000, seed: 1)
        let client = try ByteClient.start(port: proxy.port, send: sent)

        let received = try await client.finish()
        let arrived = try await server.finish()
        #expect(arrived.bytes == sent)
        #expect(arrived.error == nil)
        #expect(received.bytes == FaultLabBytes.make(1_000_000, seed: 2))
        #expect(try await proxy.waitForEnding(connection: 0) == .closed)
        #expect(proxy.connections == [.init(index: 0, upstream: 2_500_000, downstream: 1_000_000, ending: .closed)])
        #expect(proxy.bytesForwarded(.upstream) == 2_500_000)
    }

    @Test(arguments: [FaultProxy.CutMode.close, .reset])
    func aCutAfterNBytesDeliversExactlyN(mode: FaultProxy.CutMode) async throws {
        let server = try ByteServer()
        let proxy = try FaultProxy(toHost: "127.0.0.1", port: server.port)
        proxy.schedule(connection: 0, upstream: .init(cutAfter: 100_003, cutMode: mode))
        let sent = FaultLabBytes.make(1_000_000, seed: 3)
        let client = try ByteClient.start(port: proxy.port, send: sent)

        let arrived = try await server.finish()
        #expect(arrived.bytes == Array(sent.prefix(100_003)))
        #expect(arrived.error == (mode == .reset ? ECONNRESET : nil), "a reset after the bytes, or a plain end")
        #expect(try await proxy.waitForEnding(connection: 0) == .cut(mode))
        #expect(proxy.connections.first?.upstream == 100_003)
        let outcome = try await client.finish()
        #expect(outcome.error != nil || outcome.bytes.isEmpty, "the client lost its connection")
    }

    @Test func aStallHoldsTheBytesUntilResumedAndATimedStallEndsByItself() async throws {
        let server = try ByteServer()
        let proxy = try FaultProxy(toHost: "127.0.0.1", port: server.port)
        proxy.schedule(connection: 0, upstream: .init(stallAfter: 50_000))
        proxy.schedule(connection: 1, upstream: .init(stallAfter: 10_000, stallFor: .milliseconds(300)))
        let sent = FaultLabBytes.make(400_000, seed: 4)
        let client = try ByteClient.start(port: proxy.port, send: sent)

        try await proxy.waitForBytes(.upstream, atLeast: 50_000)
        try await Task.sleep(for: .milliseconds(300))
        #expect(proxy.connections.first?.upstream == 50_000, "nothing passes while stalled")
        #expect(proxy.connections.first?.ending == nil, "the connection stays open")
        proxy.resume()
        #expect(try await server.finish().bytes == sent)
        _ = try await client.finish()

        let second = try ByteServer()
        let timed = try FaultProxy(toHost: "127.0.0.1", port: second.port)
        timed.schedule(connection: 0, upstream: .init(stallAfter: 10_000, stallFor: .milliseconds(300)))
        let started = ContinuousClock.now
        let other = try ByteClient.start(port: timed.port, send: sent)
        #expect(try await second.finish().bytes == sent)
        #expect(ContinuousClock.now - started >= .milliseconds(250), "the stall lasted")
        _ = try await other.finish()
    }

    @Test func aCommandedStallAndCutActOnOpenConnections() async throws {
        let server = try ByteServer()
        let proxy = try FaultProxy(toHost: "127.0.0.1", port: server.port)
        proxy.setRate(200_000, .upstream)
        let client = try ByteClient.start(port: proxy.port, send: FaultLabBytes.make(2_000_000, seed: 5))
        try await proxy.waitForBytes(.upstream, atLeast: 20_000)
        proxy.stall()
        try await Task.sleep(for: .milliseconds(200))
        let before = proxy.bytesForwarded(.upstream)
        try await Task.sleep(for: .milliseconds(300))
        #expect(proxy.bytesForwarded(.upstream) == before, "a stall stops the flow")
        proxy.cutAll(mode: .reset)
        let arrived = try await server.finish()
        #expect(arrived.bytes.count == before)
        #expect(arrived.error == ECONNRESET)
        #expect(try await proxy.waitForEnding(connection: 0) == .cut(.reset))
        _ = try await client.finish()
    }

    @Test func throttlingHoldsTheRateRoughly() async throws {
        let server = try ByteServer()
        let proxy = try FaultProxy(toHost: "127.0.0.1", port: server.port)
        proxy.schedule(upstream: .init(bytesPerSecond: 250_000))
        let started = ContinuousClock.now
        let client = try ByteClient.start(port: proxy.port, send: FaultLabBytes.make(500_000, seed: 6))
        #expect(try await server.finish().bytes.count == 500_000)
        let elapsed = ContinuousClock.now - started
        // 2 seconds at 250 kB/s; only the slow side is asserted, loosely.
        #expect(elapsed >= .milliseconds(1500), "500 kB at 250 kB/s took \(elapsed)")
        _ = try await client.finish()

        // A rate set while a connection runs applies to it at once.
        let second = try ByteServer()
        let live = try FaultProxy(toHost: "127.0.0.1", port: second.port)
        live.setRate(100_000)
        let other = try ByteClient.start(port: live.port, send: FaultLabBytes.make(3_000_000, seed: 7))
        try await live.waitForBytes(.upstream, atLeast: 10_000)
        #expect(live.bytesForwarded(.upstream) < 1_000_000, "throttled at first")
        live.setRate(nil)
        #expect(try await second.finish().bytes.count == 3_000_000)
        _ = try await other.finish()
    }

    @Test func whileDownNewConnectionsAreRefusedOrReset() async throws {
        let server = try ByteServer()
        let proxy = try FaultProxy(toHost: "127.0.0.1", port: server.port)
        proxy.goDown()
        #expect(throws: (any Error).self) { try ByteClient.connect(port: proxy.port) }
        proxy.goDown(.reset)
        let reset = try ByteClient.start(port: proxy.port, send: [])
        #expect(try await reset.finish().error == ECONNRESET)
        #expect(proxy.refusedWhileDown == 1)
        #expect(proxy.connections.isEmpty)

        try proxy.comeUp()
        let sent = FaultLabBytes.make(10_000, seed: 8)
        let client = try ByteClient.start(port: proxy.port, send: sent)
        #expect(try await server.finish().bytes == sent)
        _ = try await client.finish()
        #expect(proxy.connections.map(\.upstream) == [10_000])
    }

    @Test func releasingTheProxyStopsItAndClosesItsConnections() async throws {
        let server = try ByteServer()
        var proxy: FaultProxy? = try FaultProxy(toHost: "127.0.0.1", port: server.port)
        let port = try #require(proxy?.port)
        proxy?.stall()
        let client = try ByteClient.start(port: port, send: FaultLabBytes.make(1000, seed: 11))
        try await proxy?.waitForConnections(1)
        proxy = nil
        #expect(try await server.finish().bytes.isEmpty, "the stalled connection was closed")
        _ = try await client.finish()
        #expect(throws: (any Error).self) { try ByteClient.connect(port: port) }
    }

    @Test func aFlippedByteInsideTLSIsCaughtAndNothingCorruptLands() async throws {
        let dir = TemporaryDirectory("flip")
        let harness = try ReceiverHarness(in: dir)
        defer { harness.stop() }
        let proxy = try FaultProxy(toHost: "127.0.0.1", port: Int(harness.receiver.port))
        // Well past the handshake and the offer: inside the file's data.
        proxy.schedule(connection: 0, upstream: .init(flipAt: 600_000))
        FileTree.writeFile(dir.at("data.bin"), size: 2 << 20, seed: 9)

        do {
            let report = try await TestSender(in: dir).send([dir.at("data.bin")], toEndpoint: proxy.endpoint)
            Issue.record("a transfer with a flipped byte succeeded: \(report)")
        } catch {
            #expect("\(error)".contains("bad record mac"), "the sender hears of the integrity failure: \(error)")
        }
        let failure = try #require(await harness.nextFailure(), "the receiver reports a failure")
        #expect("\(failure)".contains("bad record mac"), "TLS caught the flipped byte: \(failure)")
        #expect(leftovers(harness.destination).isEmpty, "nothing landed")
        #expect(proxy.connections.first.map { $0.upstream > 600_000 } == true, "the flipped byte was forwarded")
    }

    @Test func controlLinesDriveTheProxy() async throws {
        let server = try ByteServer()
        let proxy = try FaultProxy(toHost: "127.0.0.1", port: server.port)
        #expect(proxy.perform("plan conn=0 dir=up cut=1000 reset") == #"{"ok":true}"#)
        #expect(proxy.scheduledFaults(.upstream, connection: 0) == .init(cutAfter: 1000, cutMode: .reset))
        #expect(proxy.perform("plan dir=down rate=5000 stall=10 for=0.5") == #"{"ok":true}"#)
        #expect(
            proxy.scheduledFaults(.downstream)
                == .init(stallAfter: 10, stallFor: .milliseconds(500), bytesPerSecond: 5000))
        #expect(proxy.perform("stall dir=sideways").contains(#""error":"dir wants up or down, not 'sideways'""#))
        #expect(proxy.perform("explode").contains(#""ok":false"#))
        #expect(proxy.perform("rate fast").contains(#""ok":false"#))
        #expect(proxy.perform("rate off") == #"{"ok":true}"#)

        let client = try ByteClient.start(port: proxy.port, send: FaultLabBytes.make(5000, seed: 10))
        #expect(try await server.finish().bytes.count == 1000)
        _ = try await client.finish()
        _ = try await proxy.waitForEnding(connection: 0)
        let stats = try #require(
            try JSONSerialization.jsonObject(with: Data(proxy.perform("stats").utf8)) as? [String: Any])
        #expect(stats["upstream"] as? Int == 1000)
        let connections = stats["connections"] as? [[String: Any]]
        #expect(connections?.first?["ending"] as? String == "cut (reset)")
    }
}

extension TestSender {
    /// Sends to `endpoint` (e.g. a fault proxy in front of a harness) on a thread of its own.
    func send(_ paths: [String], toEndpoint endpoint: String) async throws(SendError) -> SendReport {
        let prepared = try PreparedSend.scan(paths)
        return try await Sender.sendAsync(
            prepared, toFirstOf: [Endpoint(parsing: endpoint)!], identity: identity, options: options)
    }
}
