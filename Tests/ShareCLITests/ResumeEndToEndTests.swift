import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Interrupted transfers through the real binary: connections cut by the fault lab's
/// proxy, a sender and a receiver killed with SIGKILL, and a receiver stopped for longer than the
/// stall limit; each time the send continues from what the receiver holds, and nothing partial or
/// duplicated is ever under a final name.
@Suite(.serialized) struct ResumeEndToEndTests {
    /// Stall limit and keep window short enough for tests (README: Interrupted transfers).
    static let quick = ["SHARE_STALL_TIMEOUT": "2"]

    func machine(_ name: String, in dir: TemporaryDirectory) -> TestMachine {
        TestMachine(name, in: dir, extra: Self.quick)
    }

    func partials(_ machine: TestMachine) async -> [[String: Any]] {
        let listed = await machine.run(["inbox", "list", "--json"])
        return (jsonObject(listed.stdout)?["partial"] as? [[String: Any]]) ?? []
    }

    @Test func aSendWhoseConnectionIsCutReconnectsByItselfAndSaysHowMuchWasAlreadyThere() async throws {
        let dir = TemporaryDirectory("e2e-resume-cut")
        let alice = machine("alice", in: dir)
        let bob = machine("bob", in: dir)
        FileTree.writeFile(dir.at("disk.iso"), size: 24 << 20, seed: 31)
        FileTree.writeFile(dir.at("logs.tar"), size: 12 << 20, seed: 32)
        let lab = try await ProxiedReceiver(bob, folder: dir.at("received"))
        defer { lab.stop() }
        let (folder, receiver, proxy) = (lab.folder, lab.receiver, lab.proxy)
        // The first connection is reset in the middle of the data, the second one too.
        proxy.schedule(connection: 0, upstream: .init(cutAfter: 9 << 20, cutMode: .reset))
        proxy.schedule(connection: 1, upstream: .init(cutAfter: 6 << 20, cutMode: .close))

        let sent = await alice.run(["send", dir.at("disk.iso"), "--to", proxy.endpoint, "--retry-for", "60s"])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stderr.contains("connection lost ("), "\(sent.stderr)")
        #expect(sent.stderr.contains("reconnecting in 1s (attempt 2)…"), "\(sent.stderr)")
        #expect(sent.stderr.contains("(attempt 3)…"), "\(sent.stderr)")
        #expect(sent.stderr.contains("resuming: "), "\(sent.stderr)")
        #expect(sent.stderr.contains(" of 25 MB already there"), "\(sent.stderr)")
        #expect(sent.stdout.contains("were already there) after 3 connections"), "\(sent.stdout)")
        #expect(FileTree.digest(folder + "/disk.iso") == FileTree.digest(dir.at("disk.iso")))
        #expect(FileTree.allPaths(folder) == ["disk.iso"], "one copy, nothing partial")
        #expect(await partials(bob).isEmpty, "a completed transfer is no longer kept")

        // --json says how many bytes were already there and how many connections it took.
        proxy.schedule(connection: 3, upstream: .init(cutAfter: 6 << 20, cutMode: .close))
        let json = await alice.run(["send", dir.at("logs.tar"), "--to", proxy.endpoint, "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let report = try #require(jsonObject(json.stdout), "\(json.stdout)")
        #expect(report["attempts"] as? Int == 2, "\(report)")
        let resumed = report["resumedBytes"] as? Int ?? 0
        // What was in flight when the connection was cut may be lost (a reset drops what the
        // receiver's socket held), never what the receiver wrote.
        #expect(resumed > 0 && resumed < 6 << 20, "\(report)")
        #expect(json.stderr.isEmpty, "no progress or reconnection text under --json: \(json.stderr)")
        #expect(FileTree.digest(folder + "/logs.tar") == FileTree.digest(dir.at("logs.tar")))

        // Each received event says how much was continued rather than sent again.
        let received = jsonLines(receiver.stdout).filter { $0["event"] as? String == "received" }
        #expect(received.count == 2)
        #expect(received.allSatisfy { ($0["resumedBytes"] as? Int ?? 0) > 0 }, "\(received)")
    }

    @Test func noRetryFailsAtOnceAndRunningTheSendAgainContinues() async throws {
        let dir = TemporaryDirectory("e2e-resume-again")
        let alice = machine("alice", in: dir)
        let bob = machine("bob", in: dir)
        FileTree.writeFile(dir.at("video.mkv"), size: 16 << 20, seed: 33)
        let lab = try await ProxiedReceiver(bob, folder: dir.at("received"))
        defer { lab.stop() }
        let (folder, proxy) = (lab.folder, lab.proxy)
        proxy.schedule(connection: 0, upstream: .init(cutAfter: 8 << 20, cutMode: .reset))

        let first = await alice.run(["send", dir.at("video.mkv"), "--to", proxy.endpoint, "--no-retry"])
        #expect(first.status == 1)
        #expect(first.stderr.hasPrefix("Error: "), "\(first.stderr)")
        #expect(!first.stderr.contains("reconnecting"), "\(first.stderr)")
        #expect(FileTree.allPaths(folder).isEmpty, "nothing under a final name")
        // The sender gives up at the reset; the receiver keeps the part once it has written what arrived.
        var kept = await partials(bob)
        for _ in 0..<100 where (kept.first?["heldBytes"] as? Int ?? 0) <= 4 << 20 {
            try await Task.sleep(for: .milliseconds(200))
            kept = await partials(bob)
        }
        #expect(kept.count == 1, "\(kept)")
        #expect(kept.first?["items"] as? [String] == ["video.mkv"])
        #expect((kept.first?["heldBytes"] as? Int ?? 0) > 4 << 20, "\(kept)")
        let listed = await bob.run(["inbox", "list"])
        #expect(listed.stdout.contains("video.mkv"), "\(listed.stdout)")

        let again = await alice.run(["send", dir.at("video.mkv"), "--to", proxy.endpoint])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("resuming: "), "\(again.stderr)")
        #expect(again.stdout.contains("were already there)"), "\(again.stdout)")
        #expect(FileTree.digest(folder + "/video.mkv") == FileTree.digest(dir.at("video.mkv")))
        #expect(await partials(bob).isEmpty)
    }

    @Test func aSenderKilledInTheMiddleContinuesWhenRunAgain() async throws {
        let dir = TemporaryDirectory("e2e-resume-kill-sender")
        let alice = machine("alice", in: dir)
        let bob = machine("bob", in: dir)
        FileTree.makeFolder(dir.at("Photos"))
        for index in 0..<4 { FileTree.writeFile(dir.at("Photos/\(index).raw"), size: 3 << 20, seed: UInt64(40 + index)) }
        let lab = try await ProxiedReceiver(bob, folder: dir.at("received"))
        defer { lab.stop() }
        let (folder, receiver, proxy) = (lab.folder, lab.receiver, lab.proxy)
        proxy.schedule(connection: 0, upstream: .init(bytesPerSecond: 4 << 20))

        let sender = alice.start(["send", dir.at("Photos"), "--to", proxy.endpoint])
        #expect(await waitUntil(timeout: .seconds(30)) { stagedBytes(in: bob.inbox) > 5 << 20 }, "data arrives")
        sender.forceKill()
        #expect(await receiver.waitForOutput(containing: "\"failed\"", timeout: .seconds(20)), "\(receiver.stdout)")
        #expect(FileTree.allPaths(folder).isEmpty, "nothing under a final name")

        let again = await alice.run(["send", dir.at("Photos"), "--to", proxy.endpoint])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("were already there)"), "\(again.stdout)")
        for index in 0..<4 {
            #expect(FileTree.digest(folder + "/Photos/\(index).raw") == FileTree.digest(dir.at("Photos/\(index).raw")))
        }
        #expect(FileTree.allPaths(folder).filter { !$0.hasPrefix("Photos") }.isEmpty, "one bundle, no copy")
    }

    @Test func aReceiverKilledInTheMiddleKeepsWhatItHadAndTheSenderContinuesOnceItIsBack() async throws {
        let dir = TemporaryDirectory("e2e-resume-kill-receiver")
        let alice = machine("alice", in: dir)
        let bob = machine("bob", in: dir)
        FileTree.writeFile(dir.at("backup.img"), size: 20 << 20, seed: 34)
        let lab = try await ProxiedReceiver(bob, folder: dir.at("received"))
        defer { lab.stop() }
        let (folder, first, proxy) = (lab.folder, lab.receiver, lab.proxy)
        proxy.schedule(connection: 0, upstream: .init(bytesPerSecond: 4 << 20))

        let sender = alice.start(["send", dir.at("backup.img"), "--to", proxy.endpoint, "--retry-for", "60s"])
        #expect(await waitUntil(timeout: .seconds(30)) { stagedBytes(in: bob.inbox) > 6 << 20 }, "data arrives")
        first.forceKill()
        _ = await first.wait(timeout: .seconds(10))
        #expect(await sender.waitForOutput(containing: "reconnecting", timeout: .seconds(20)), "\(sender.stderr)")
        // While nobody listens, the sender keeps trying; then the receiver is started again.
        try await Task.sleep(for: .seconds(1))
        #expect(sender.process.isRunning, "the sender waits for the receiver: \(sender.stderr)")
        let second = lab.restart(bob)
        defer { second.forceKill() }

        let sent = await sender.wait(timeout: .seconds(60))
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stderr.contains("resuming: "), "\(sent.stderr)")
        #expect(FileTree.digest(folder + "/backup.img") == FileTree.digest(dir.at("backup.img")))
        #expect(FileTree.allPaths(folder) == ["backup.img"], "nothing duplicated")
        #expect(await partials(bob).isEmpty)
        let received = jsonLines(second.stdout).filter { $0["event"] as? String == "received" }
        #expect((received.first?["resumedBytes"] as? Int ?? 0) > 4 << 20, "\(second.stdout)")
    }

    @Test func aReceiverAsleepLongerThanTheStallLimitIsReconnectedToOnceItWakes() async throws {
        let dir = TemporaryDirectory("e2e-resume-sleep")
        let alice = machine("alice", in: dir)
        let bob = machine("bob", in: dir)
        // Larger than every buffer on the way (sockets, proxy), so the sender cannot finish writing
        // while the receiver sleeps.
        FileTree.writeFile(dir.at("movie.bin"), size: 48 << 20, seed: 35)
        let lab = try await ProxiedReceiver(bob, folder: dir.at("received"))
        defer { lab.stop() }
        let (folder, receiver, proxy) = (lab.folder, lab.receiver, lab.proxy)
        proxy.schedule(connection: 0, upstream: .init(bytesPerSecond: 8 << 20))

        let sender = alice.start(["send", dir.at("movie.bin"), "--to", proxy.endpoint, "--retry-for", "60s"])
        #expect(await waitUntil(timeout: .seconds(30)) { stagedBytes(in: bob.inbox) > 4 << 20 }, "data arrives")
        // A laptop lid closed: the receiver stands still for three times the stall limit.
        try receiver.suspend()
        #expect(await sender.waitForOutput(containing: "reconnecting", timeout: .seconds(20)), "\(sender.stderr)")
        try await Task.sleep(for: .seconds(4))
        try receiver.resume()

        let sent = await sender.wait(timeout: .seconds(60))
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stderr.contains("resuming: "), "\(sent.stderr)")
        #expect(FileTree.digest(folder + "/movie.bin") == FileTree.digest(dir.at("movie.bin")))
        #expect(FileTree.allPaths(folder) == ["movie.bin"])
    }
}

/// A person decides once (README: Interrupted transfers): the receiver's user, on a terminal, is
/// not asked again when the same sender reconnects to continue the offer just accepted; a different
/// offer is asked about as usual.
extension TrustEndToEndTests {
    @Test func aContinuedOfferIsNotAskedAboutAgainButADifferentOneIs() async throws {
        let dir = TemporaryDirectory("trust-resume-ask")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeFile(dir.at("film.mkv"), size: 16 << 20, seed: 36)
        FileTree.writeText(dir.at("note.txt"), "hello")
        let (receiver, port) = try terminalReceiver(bob, dir)
        let proxy = try FaultProxy(toHost: "127.0.0.1", port: port)
        defer { proxy.stop() }
        proxy.schedule(connection: 0, upstream: .init(cutAfter: 6 << 20, cutMode: .reset))

        let sender = alice.start(["send", dir.at("film.mkv"), "--to", proxy.endpoint, "--retry-for", "60s"])
        #expect(receiver.waitForOutput(containing: "Accept? [y/N]"))
        receiver.type("y\n")
        let sent = await sender.wait(timeout: .seconds(60))
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stderr.contains("resuming: "), "\(sent.stderr)")
        // (The question's line is redrawn as the answer is typed; the offer is described once per question.)
        #expect(receiver.output.components(separatedBy: "offers 1 item, 17 MB").count == 2, "asked once: \(receiver.output.debugDescription)")
        // The receiver may print its line a moment after the sender has its receipt.
        #expect(receiver.waitForOutput(containing: "(continued: "), "\(receiver.output.debugDescription)")
        #expect(FileTree.digest(dir.at("inbox/film.mkv")) == FileTree.digest(dir.at("film.mkv")))

        // Another offer from the same sender is a new question.
        let mark = receiver.mark
        let other = alice.start(["send", dir.at("note.txt"), "--to", proxy.endpoint])
        #expect(receiver.waitForOutput(containing: "Accept? [y/N]", after: mark))
        receiver.type("n\n")
        #expect(await other.wait(timeout: .seconds(30)).status == 1)
        receiver.interrupt()
        _ = receiver.wait()
    }
}
