import Foundation
import ShareDocuments
import ShareKit
import ShareTLS
import ShareTestSupport
import ShareTransport
import ShareWire
import Testing

/// One send to several receivers at once (`share send --to a --to b --to c`) over real TLS on
/// loopback: the files are read and hashed once for all of them (``SharedSource``), each receiver
/// gets verified copies, and no receiver's trouble (declining, a cut connection, a slow link, a
/// file that changes) stops or holds back the others.
@Suite struct FanOutTests {
    /// `count` receivers in `dir` (folders r0, r1, ...), each with its own identity.
    func receivers(_ count: Int, in dir: TemporaryDirectory) throws -> [ReceiverHarness] {
        try (0..<count).map { index in
            let identity = try Identity.loadOrCreate(in: dir.at("config\(index)"))
            return try ReceiverHarness(
                in: dir, name: "desk\(index)", identity: identity, inbox: dir.at("inbox\(index)"),
                configure: { $0.destination = dir.at("r\(index)") })
        }
    }

    /// Sends `prepared` to every endpoint at once, sharing `source`; the results in order.
    func sendToAll(
        _ prepared: PreparedSend, endpoints: [String], source: SharedSource, sender: TestSender
    ) async -> [Result<SendReport, SendError>] {
        await withTaskGroup(of: (Int, Result<SendReport, SendError>).self) { group in
            for (index, endpoint) in endpoints.enumerated() {
                var options = sender.options
                options.sharedSource = source
                group.addTask {
                    do throws(SendError) {
                        let report = try await Sender.sendAsync(
                            prepared, toFirstOf: [Endpoint(parsing: endpoint)!], identity: sender.identity,
                            options: options)
                        return (index, .success(report))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var results = [Result<SendReport, SendError>?](repeating: nil, count: endpoints.count)
            for await (index, result) in group { results[index] = result }
            return results.map { $0! }
        }
    }

    /// Expects every send of `results` to have succeeded, receiver `index` holding a copy of `name`
    /// identical to the source.
    func expectIntactCopies(of name: String, from results: [Result<SendReport, SendError>], in dir: TemporaryDirectory) {
        for (index, result) in results.enumerated() {
            guard case .success = result else {
                Issue.record("receiver \(index): \(result)")
                continue
            }
            #expect(hexDigest(of: dir.at("r\(index)/\(name)")) == hexDigest(of: dir.at(name)))
        }
    }

    func write(_ bytes: [UInt8], to path: String) {
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
    }

    @Test func threeReceiversGetIdenticalVerifiedCopiesOfFilesReadOnce() async throws {
        let dir = TemporaryDirectory("fanout-three")
        FileTree.makeFolder(dir.at("Project"))
        write(SampleBytes.random(count: 9 << 20 | 12345, seed: 1), to: dir.at("Project/data.bin"))
        write(SampleBytes.text(count: 5 << 20, seed: 2), to: dir.at("Project/server.log"))
        for index in 0..<40 {
            write(
                SampleBytes.text(count: 100 + index * 97, seed: UInt64(index)), to: dir.at("Project/note\(index).txt"))
        }
        write([], to: dir.at("Project/empty"))
        let harnesses = try receivers(3, in: dir)
        let prepared = try PreparedSend.scan([dir.at("Project")])
        let source = SharedSource(prepared)

        let results = await sendToAll(
            prepared, endpoints: harnesses.map(\.endpoint), source: source, sender: try TestSender(in: dir))

        for (index, result) in results.enumerated() {
            guard case .success(let report) = result else {
                Issue.record("receiver \(index): \(result)")
                continue
            }
            #expect(report.files.count == 43)
            for name in ["data.bin", "server.log", "note39.txt", "empty"] {
                #expect(hexDigest(of: dir.at("r\(index)/Project/\(name)")) == hexDigest(of: dir.at("Project/\(name)")))
            }
        }
        #expect(
            Set(results.compactMap { try? $0.get().files.map(\.sha256) }).count == 1, "the same hashes for everyone")
        #expect(source.bytesRead == prepared.manifest.totalBytes, "the files were read once for the three receivers")
    }

    @Test func aReceiverThatDeclinesOrIsCutOffDoesNotStopTheOthers() async throws {
        let dir = TemporaryDirectory("fanout-trouble")
        write(SampleBytes.random(count: 12 << 20, seed: 3), to: dir.at("big.bin"))
        let harnesses = try receivers(2, in: dir)
        let declining = try ReceiverHarness(in: dir, name: "no", inbox: dir.at("inbox-no")) { _ in
            Decision(.declinedByUser, message: "not today")
        } configure: {
            $0.destination = dir.at("declined")
        }
        // The second receiver's connection is cut after 2 MB (as if it died), with no retry.
        let proxy = try FaultProxy(toHost: "127.0.0.1", port: Int(harnesses[1].receiver.port))
        proxy.schedule(upstream: .init(cutAfter: 2_000_000, cutMode: .reset))
        let prepared = try PreparedSend.scan([dir.at("big.bin")])
        let source = SharedSource(prepared)

        let results = await sendToAll(
            prepared, endpoints: [harnesses[0].endpoint, proxy.endpoint, declining.endpoint], source: source,
            sender: try TestSender(in: dir))

        guard case .success = results[0] else {
            Issue.record("the receiver that accepted failed: \(results[0])")
            return
        }
        #expect(hexDigest(of: dir.at("r0/big.bin")) == hexDigest(of: dir.at("big.bin")))
        guard case .failure = results[1] else {
            Issue.record("the cut connection succeeded")
            return
        }
        guard case .failure(.declined) = results[2] else {
            Issue.record("the declining receiver: \(results[2])")
            return
        }
        #expect(!FileManager.default.fileExists(atPath: dir.at("r1/big.bin")))
    }

    @Test func aThrottledReceiverFallsOutOfTheWindowAndDoesNotHoldTheOthers() async throws {
        let dir = TemporaryDirectory("fanout-slow")
        let total = 48 << 20
        write(SampleBytes.random(count: total, seed: 4), to: dir.at("big.bin"))
        let harnesses = try receivers(3, in: dir)
        let proxy = try FaultProxy(toHost: "127.0.0.1", port: Int(harnesses[2].receiver.port))
        proxy.schedule(upstream: .init(bytesPerSecond: 4_000_000))
        let prepared = try PreparedSend.scan([dir.at("big.bin")])
        let source = SharedSource(prepared, window: 4 << 20)
        var sender = try TestSender(in: dir)
        sender.options.compression = .off
        let endpoints = [harnesses[0].endpoint, harnesses[1].endpoint, proxy.endpoint]

        let slowDone = Task { await sendToAll(prepared, endpoints: [endpoints[2]], source: source, sender: sender)[0] }
        let fast = await sendToAll(prepared, endpoints: Array(endpoints[..<2]), source: source, sender: sender)
        // Held by the slow one, the fast ones would finish only when it is within the window and its
        // buffers of the end (more than half): out of the window, they finish long before.
        let slowSoFar = proxy.bytesForwarded(.upstream)
        proxy.setRate(nil)
        let slow = await slowDone.value

        expectIntactCopies(of: "big.bin", from: fast + [slow], in: dir)
        #expect(slowSoFar < total / 2, "the throttled receiver had \(slowSoFar) bytes when the others were done")
        #expect(source.bytesRead > UInt64(total), "the throttled receiver read on its own once out of the window")
    }

    @Test func aReceiverThatAcceptsAfterTheOthersAreDoneReadsOnItsOwn() async throws {
        let dir = TemporaryDirectory("fanout-late")
        let total = 16 << 20
        write(SampleBytes.random(count: total, seed: 6), to: dir.at("big.bin"))
        let harnesses = try receivers(2, in: dir)
        let othersDone = DispatchSemaphore(value: 0)
        let late = try ReceiverHarness(
            in: dir, name: "late", identity: try Identity.loadOrCreate(in: dir.at("config-late")),
            inbox: dir.at("inbox-late"),
            decide: { _ in
                othersDone.wait()
                return Decision(.accepted)
            },
            configure: { $0.destination = dir.at("r2") })
        let prepared = try PreparedSend.scan([dir.at("big.bin")])
        let window = 4 << 20
        let source = SharedSource(prepared, window: window)
        let sender = try TestSender(in: dir)

        let lateDone = Task { await sendToAll(prepared, endpoints: [late.endpoint], source: source, sender: sender)[0] }
        let early = await sendToAll(prepared, endpoints: harnesses.map(\.endpoint), source: source, sender: sender)
        othersDone.signal()
        let lateResult = await lateDone.value

        expectIntactCopies(of: "big.bin", from: early + [lateResult], in: dir)
        // The group read the file; the late one, which found the group gone, read it on its own up to
        // where the window still held the group's last chunks.
        #expect(source.bytesRead >= UInt64(2 * total - window))
    }

    @Test func aFileThatChangesWhileBeingSentFailsForEveryReceiver() async throws {
        let dir = TemporaryDirectory("fanout-changed")
        let total = 32 << 20
        write(SampleBytes.random(count: total, seed: 5), to: dir.at("big.bin"))
        let harnesses = try receivers(3, in: dir)
        let proxies = try harnesses.map { try FaultProxy(toHost: "127.0.0.1", port: Int($0.receiver.port)) }
        for proxy in proxies { proxy.schedule(upstream: .init(bytesPerSecond: 8_000_000)) }
        let prepared = try PreparedSend.scan([dir.at("big.bin")])
        let source = SharedSource(prepared, window: 1 << 20)
        var sender = try TestSender(in: dir)
        sender.options.compression = .off

        let sending = Task {
            await sendToAll(prepared, endpoints: proxies.map(\.endpoint), source: source, sender: sender)
        }
        try await proxies[0].waitForBytes(.upstream, atLeast: 1 << 20)
        #expect(truncate(dir.at("big.bin"), off_t(total / 4)) == 0)
        for proxy in proxies { proxy.setRate(nil) }
        let results = await sending.value

        for (index, result) in results.enumerated() {
            guard case .failure(let error) = result else {
                Issue.record("receiver \(index) got a file that changed on the way")
                continue
            }
            #expect(error.description.contains("while being sent"), "receiver \(index): \(error)")
            #expect(!FileManager.default.fileExists(atPath: dir.at("r\(index)/big.bin")))
        }
    }
}
