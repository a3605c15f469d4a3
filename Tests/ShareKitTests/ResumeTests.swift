import Foundation
import ShareDocuments
import ShareKit
import ShareTLS
import ShareTestSupport
import ShareTransport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Transfers that stop part-way are continued, not restarted (docs/PROTOCOL.md §7): a
/// real receiver on loopback keeps what arrived, and the same sender continues from there.
@Suite(.serialized) struct ResumeTests {
    /// Sends `paths` and cuts the connection once `fraction` of the bytes went out (as a network
    /// failure would); returns how the send ended.
    func sendAndStop(
        _ paths: [String], with sender: TestSender, to harness: ReceiverHarness, at fraction: Double
    ) async -> SendError? {
        var sender = sender
        do {
            let prepared = try PreparedSend.scan(paths)
            sender.options.cutConnectionAfterBytes = UInt64(Double(prepared.manifest.totalBytes) * fraction)
            _ = try await Sender.sendAsync(
                prepared, toFirstOf: [Endpoint(parsing: harness.endpoint)!], identity: sender.identity,
                options: sender.options)
            return nil
        } catch {
            return error
        }
    }

    func partials(_ harness: ReceiverHarness) -> [PartialTransfer] {
        PartialStore(inbox: harness.inbox).list()
    }

    /// Waits until the receiver reports the stopped transfer (it has let go of its staging area).
    func waitForFailure(_ harness: ReceiverHarness) async {
        while let outcome = await harness.nextOutcome(timeout: .seconds(10)) {
            if case .failed = outcome { return }
        }
    }

    @Test func aStoppedTransferContinuesFromWhatTheReceiverHolds() async throws {
        let dir = TemporaryDirectory("resume-continue")
        let harness = try ReceiverHarness(in: dir)
        FileTree.makeFolder(dir.at("Album"))
        FileTree.writeFile(dir.at("Album/a.bin"), size: 6_000_000, seed: 1)
        FileTree.writeFile(dir.at("Album/b.bin"), size: 6_000_000, seed: 2)
        FileTree.writeFile(dir.at("big.bin"), size: 24_000_000, seed: 3)
        let paths = [dir.at("Album"), dir.at("big.bin")]
        let sender = try TestSender(in: dir)

        let stopped = await sendAndStop(paths, with: sender, to: harness, at: 0.6)
        #expect(stopped?.outcome == "failed", "\(String(describing: stopped))")
        await waitForFailure(harness)
        let kept = partials(harness)
        #expect(kept.count == 1)
        #expect(kept.first?.items == ["Album", "big.bin"])
        #expect(kept.first?.senderFingerprint == sender.identity.fingerprint.hex)
        let held = kept.first?.heldBytes ?? 0
        #expect(held > 10_000_000 && held < 36_000_000, "held \(held)")
        #expect(FileTree.allPaths(harness.destination).isEmpty, "nothing under a final name")

        let report = try await sender.send(paths, to: harness)
        #expect(report.resumedBytes > 10_000_000, "resumed \(report.resumedBytes)")
        #expect(report.resumedBytes <= held)
        for path in ["Album/a.bin", "Album/b.bin", "big.bin"] {
            #expect(hexDigest(of: harness.destination + "/" + path) == hexDigest(of: dir.at(path)), "\(path)")
        }
        #expect(partials(harness).isEmpty, "the completed transfer is no longer kept")
    }

    @Test func aSendWhoseConnectionKeepsFailingReconnectsByItselfAndContinues() async throws {
        let dir = TemporaryDirectory("resume-retry")
        let harness = try ReceiverHarness(in: dir)
        FileTree.writeFile(dir.at("iso.bin"), size: 40_000_000, seed: 8)
        var sender = try TestSender(in: dir)
        // Every connection is cut after 12 MB of new data: four connections carry the file, or five
        // when what was in flight at a cut had not reached the receiver's disk.
        sender.options.cutConnectionAfterBytes = 12_000_000
        sender.options.retry = RetryPolicy(retryFor: .seconds(60), initialDelay: .milliseconds(100), maxDelay: .milliseconds(200))
        let reconnections = Mutex<[Reconnection]>([])
        let resumptions = Mutex<[Resumption]>([])
        sender.options.onReconnect = { reconnection in reconnections.withLock { $0.append(reconnection) } }
        sender.options.onResume = { resumption in resumptions.withLock { $0.append(resumption) } }
        let report = try await sender.send([dir.at("iso.bin")], to: harness)
        #expect((4...5).contains(report.attempts), "\(report.attempts) attempts")
        #expect(report.resumedBytes >= 20_000_000, "resumed \(report.resumedBytes)")
        #expect(reconnections.withLock { $0.map(\.attempt) } == Array(2...max(2, report.attempts)))
        #expect(resumptions.withLock { $0.count } == report.attempts - 1)
        #expect(resumptions.withLock { $0.allSatisfy { $0.totalBytes == 40_000_000 && $0.heldBytes > 0 } })
        #expect(hexDigest(of: harness.destination + "/iso.bin") == hexDigest(of: dir.at("iso.bin")))

        // Without a retry policy the first cut ends the send, and what arrived is kept.
        var once = try TestSender(in: dir)
        once.options.cutConnectionAfterBytes = 12_000_000
        FileTree.writeFile(dir.at("other.bin"), size: 30_000_000, seed: 9)
        do {
            _ = try await once.send([dir.at("other.bin")], to: harness)
            Issue.record("the cut connection did not fail the send")
        } catch {
            #expect(error.isRetryable(afterAcceptance: true))
            #expect(!error.isRetryable(afterAcceptance: false))
        }
    }

    @Test func a256MiBTransferCutAtTenRandomPointsCompletesWithLittleMoreOnTheWire() async throws {
        let dir = TemporaryDirectory("resume-ten-cuts")
        let harness = try ReceiverHarness(in: dir)
        defer { harness.stop() }
        FileTree.writeFile(dir.at("big.bin"), size: 256 << 20, seed: 12)
        var sender = try TestSender(in: dir)
        sender.options.retry = RetryPolicy(retryFor: .seconds(120), initialDelay: .milliseconds(50), maxDelay: .milliseconds(100))

        // One clean transfer through a proxy: the bytes a transfer puts on the wire.
        let clean = try FaultProxy(toHost: "127.0.0.1", port: Int(harness.receiver.port))
        _ = try await sender.send([dir.at("big.bin")], toEndpoint: clean.endpoint)
        let cleanBytes = clean.bytesForwarded(.upstream)
        clean.stop()

        // The same file again, its connections cut (reset or closed) after a random number of bytes.
        let proxy = try FaultProxy(toHost: "127.0.0.1", port: Int(harness.receiver.port))
        defer { proxy.stop() }
        // At most 24 MiB each, so all ten cuts fall inside the 256 MiB (a connection that carried the
        // rest would finish before its cut, and the send would take fewer connections).
        let cuts = (0..<10).map { _ in Int.random(in: (1 << 20)...(24 << 20)) }
        for (connection, cut) in cuts.enumerated() {
            proxy.schedule(connection: connection, upstream: .init(cutAfter: cut, cutMode: .close))
        }
        let report = try await sender.send([dir.at("big.bin")], toEndpoint: proxy.endpoint)
        #expect(report.attempts == 11, "cuts \(cuts): \(report.attempts) connections")
        #expect(FileTree.digest(harness.destination + "/big (2).bin") == FileTree.digest(dir.at("big.bin")))
        let wire = proxy.bytesForwarded(.upstream)
        #expect(Double(wire) <= Double(cleanBytes) * 1.05, "cuts \(cuts): \(wire) bytes on the wire, \(cleanBytes) for one clean transfer")
        #expect(PartialStore(inbox: harness.inbox).list().isEmpty)
    }

    @Test func aSenderThatReconnectsTakesOverAtOnceFromItsSilentOldConnection() async throws {
        let dir = TemporaryDirectory("resume-takeover")
        // The receiver would notice the silent old connection only after a minute.
        let harness = try ReceiverHarness(in: dir, idleTimeout: .seconds(60))
        defer { harness.stop() }
        FileTree.writeFile(dir.at("iso.bin"), size: 24_000_000, seed: 13)
        var sender = try TestSender(in: dir)
        sender.options.idleTimeout = .seconds(1)
        sender.options.retry = RetryPolicy(retryFor: .seconds(20), initialDelay: .milliseconds(100), maxDelay: .milliseconds(200))
        // The first connection goes silent in the middle (a link gone without a reset): the sender
        // gives up on it after a second and reconnects; the receiver's half stays open.
        let proxy = try FaultProxy(toHost: "127.0.0.1", port: Int(harness.receiver.port))
        defer { proxy.stop() }
        proxy.schedule(connection: 0, upstream: .init(stallAfter: 8_000_000))
        let report = try await sender.send([dir.at("iso.bin")], toEndpoint: proxy.endpoint)
        // Within the 20 s retry window, so the receiver handed the kept part to the new connection
        // without waiting for its old one to time out.
        #expect(report.attempts >= 2)
        #expect(report.resumedBytes > 0, "resumed \(report.resumedBytes)")
        #expect(FileTree.digest(harness.destination + "/iso.bin") == FileTree.digest(dir.at("iso.bin")))
    }

    @Test func aSendThatNobodyAcceptedIsNotRetried() async throws {
        let dir = TemporaryDirectory("resume-unaccepted")
        FileTree.writeFile(dir.at("a.bin"), size: 1000, seed: 10)
        var sender = try TestSender(in: dir)
        sender.options.retry = RetryPolicy(retryFor: .seconds(60), initialDelay: .milliseconds(100), maxDelay: .milliseconds(200))
        let reconnections = Mutex(0)
        sender.options.onReconnect = { _ in reconnections.withLock { $0 += 1 } }
        // Nobody listens on this port: the send says so at once instead of trying for a minute.
        let closed = Endpoint(host: "127.0.0.1", port: try freePort())
        let prepared = try PreparedSend.scan([dir.at("a.bin")])
        do {
            _ = try await Sender.sendAsync(
                prepared, toFirstOf: [closed],
                identity: sender.identity, options: sender.options)
            Issue.record("a send to nobody succeeded")
        } catch {
            #expect(error.outcome == "unreachable", "\(error)")
        }
        #expect(reconnections.withLock { $0 } == 0)
    }

    @Test func aFileThatChangedUnderTheSameSizeAndTimeStartsOver() async throws {
        let dir = TemporaryDirectory("resume-changed")
        let harness = try ReceiverHarness(in: dir)
        FileTree.writeFile(dir.at("video.bin"), size: 30_000_000, seed: 4)
        var info = stat()
        stat(dir.at("video.bin"), &info)
        let sender = try TestSender(in: dir)
        _ = await sendAndStop([dir.at("video.bin")], with: sender, to: harness, at: 0.5)
        await waitForFailure(harness)
        #expect((partials(harness).first?.heldBytes ?? 0) > 0)

        // The first megabyte changes; size and modification time are put back as they were.
        let fd = open(dir.at("video.bin"), O_WRONLY)
        let patch = [UInt8](repeating: 0x5A, count: 1 << 20)
        _ = patch.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        var times = [info.st_atim, info.st_mtim]
        futimens(fd, &times)
        close(fd)

        let report = try await sender.send([dir.at("video.bin")], to: harness)
        #expect(report.resumedBytes == 0, "another version is never stitched to the old one")
        #expect(hexDigest(of: harness.destination + "/video.bin") == hexDigest(of: dir.at("video.bin")))
    }

    @Test func aKeptPartRestartedAndCutAgainReportsWhatIsKeptNow() async throws {
        let dir = TemporaryDirectory("resume-restart-cut")
        let harness = try ReceiverHarness(in: dir)
        FileTree.writeFile(dir.at("video.bin"), size: 8 << 20, seed: 5)
        var info = stat()
        stat(dir.at("video.bin"), &info)
        let sender = try TestSender(in: dir)
        _ = await sendAndStop([dir.at("video.bin")], with: sender, to: harness, at: 0.5)
        let first = await keptBytes(harness)
        #expect(first > 0 && first == partials(harness).first?.heldBytes, "kept \(first)")

        // The file changes under the same size and time: the sender restarts it from 0, and the
        // connection is cut again after a quarter of it.
        let fd = open(dir.at("video.bin"), O_WRONLY)
        let patch = [UInt8](repeating: 0x5A, count: 1 << 20)
        _ = patch.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        var times = [info.st_atim, info.st_mtim]
        futimens(fd, &times)
        close(fd)
        _ = await sendAndStop([dir.at("video.bin")], with: sender, to: harness, at: 0.25)
        let second = await keptBytes(harness)
        let held = partials(harness).first?.heldBytes ?? 0
        #expect(second == held, "the failure reports \(second) bytes kept; \(held) are")
        #expect(held < first, "what was kept of the old version was discarded")
    }

    /// The bytes the receiver's next failure reports as kept.
    func keptBytes(_ harness: ReceiverHarness) async -> UInt64 {
        while let outcome = await harness.nextOutcome(timeout: .seconds(10)) {
            if case .failed(_, _, _, _, let kept) = outcome { return kept }
        }
        return 0
    }

    @Test func anotherKeyNeverContinuesSomeoneElsesTransfer() async throws {
        let dir = TemporaryDirectory("resume-other-key")
        let harness = try ReceiverHarness(in: dir)
        FileTree.writeFile(dir.at("doc.bin"), size: 20_000_000, seed: 5)
        _ = await sendAndStop([dir.at("doc.bin")], with: try TestSender(in: dir), to: harness, at: 0.5)
        await waitForFailure(harness)
        #expect(partials(harness).count == 1)

        let other = TestSender(identity: try Identity.loadOrCreate(in: dir.at("other-config")))
        let report = try await other.send([dir.at("doc.bin")], to: harness)
        #expect(report.resumedBytes == 0)
        #expect(hexDigest(of: harness.destination + "/doc.bin") == hexDigest(of: dir.at("doc.bin")))
        #expect(partials(harness).count == 1, "the first sender's partial transfer is still its own")
    }

    @Test func theOfferIdentityIsTheOneDocumentedInTheProtocol() throws {
        // The four entries of docs/PROTOCOL.md Appendix A's OFFER and ENTRIES vectors.
        let manifest = try Manifest(entries: [
            ManifestEntry(
                kind: .file, path: "a.txt", mode: 0o644, modificationSeconds: 1_700_000_000, modificationNanoseconds: 5,
                size: 3, declaredType: "public.plain-text"),
            ManifestEntry(kind: .directory, path: "B.sbz", mode: 0o755, modificationSeconds: -1),
            ManifestEntry(kind: .symlink, path: "B.sbz/l", mode: 0o777, linkTarget: "."),
            ManifestEntry.note(name: "Note.txt", text: "hi"),
        ])
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        let text = try String(contentsOf: root.appendingPathComponent("docs/PROTOCOL.md"), encoding: .utf8)
        let documented = text.components(separatedBy: "its offerID is `").dropFirst().first?.prefix(64)
        let computed = OfferIdentity.of(manifest).map { String(format: "%02x", $0) }.joined()
        #expect(documented.map(String.init) == computed, "offerID \(computed)")
    }

    @Test func keptTransfersExpireAndCanBeRemoved() async throws {
        let dir = TemporaryDirectory("resume-expire")
        let harness = try ReceiverHarness(in: dir)
        FileTree.writeFile(dir.at("a.bin"), size: 20_000_000, seed: 6)
        FileTree.writeFile(dir.at("b.bin"), size: 20_000_000, seed: 7)
        let sender = try TestSender(in: dir)
        _ = await sendAndStop([dir.at("a.bin")], with: sender, to: harness, at: 0.5)
        await waitForFailure(harness)
        _ = await sendAndStop([dir.at("b.bin")], with: sender, to: harness, at: 0.5)
        await waitForFailure(harness)
        let kept = partials(harness)
        #expect(kept.map(\.items) == [["a.bin"], ["b.bin"]])

        let store = PartialStore(inbox: harness.inbox)
        #expect(store.remove(kept[0]))
        #expect(partials(harness).map(\.items) == [["b.bin"]])
        PartialStore(inbox: harness.inbox, keep: .zero).expire(now: Date().addingTimeInterval(1))
        #expect(partials(harness).isEmpty)
    }
}
