import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A `share receive` stopped with SIGSTOP in the middle of a transfer, as a laptop that goes to
/// sleep, and continued (the fault lab's process helpers; the transfer goes through a FaultProxy that
/// holds it to about 2 seconds).
@Suite struct ProcessFaultTests {
    @Test func aReceiverStoppedInTheMiddleAndContinuedFinishesTheTransfer() async throws {
        let dir = TemporaryDirectory("e2e-sigstop")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeFile(dir.at("video.bin"), size: 6 << 20, seed: 21)
        let lab = try await ProxiedReceiver(bob, folder: dir.at("received"))
        defer { lab.proxy.stop() }
        let (folder, receiver, proxy) = (lab.folder, lab.receiver, lab.proxy)
        proxy.setRate(3 << 20, .upstream)

        let sender = alice.start(["send", dir.at("video.bin"), "--to", proxy.endpoint])
        #expect(await waitUntil { stagedBytes(in: bob.inbox) > 1 << 20 }, "data reaches the receiver")
        try receiver.suspend()
        #expect(ProcessControl.isStopped(receiver.process.processIdentifier))
        let staged = stagedBytes(in: bob.inbox)
        try await Task.sleep(for: .seconds(1))
        #expect(stagedBytes(in: bob.inbox) == staged, "a stopped receiver stores nothing")
        #expect(sender.process.isRunning, "the sender waits")
        try receiver.resume()

        let sent = await sender.wait(timeout: .seconds(60))
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(FileTree.digest(folder + "/video.bin") == FileTree.digest(dir.at("video.bin")))
        receiver.signal(SIGINT)
        #expect(await receiver.wait(timeout: .seconds(10)).status == 128 + SIGINT)
    }

    /// A `share receive --accept all --json` of `machine`, and where to send to it.
    private func receiver(_ machine: TestMachine, into folder: String) async throws -> (RunningShare, String) {
        let receiver = machine.start(["receive", "--port", "0", "--dir", folder, "--accept", "all", "--json"])
        let port = try #require(await receiver.listeningPort())
        return (receiver, "127.0.0.1:\(port)")
    }

    @Test func aReceiverStoppedLongerThanTheStallLimitIsLeftWhenItRunsOutAndReconnectedTo() async throws {
        let dir = TemporaryDirectory("e2e-sigstop-stall")
        let quick = ["SHARE_STALL_TIMEOUT": "2"]
        let alice = TestMachine("alice", in: dir, extra: quick)
        let bob = TestMachine("bob", in: dir, extra: quick)
        // Far more than every buffer on the way can hold, raw: a receiver slow to drain on a busy
        // machine is judged distant, and zstd makes the sparse file's zeros a few MiB on the wire.
        FileTree.writeSparseFile(dir.at("disk.img"), size: 4 << 30)
        let (receiver, address) = try await receiver(bob, into: dir.at("received"))
        let sender = alice.start(["send", dir.at("disk.img"), "--to", address, "--retry-for", "60s", "--no-compress"])
        defer {
            sender.forceKill()
            receiver.forceKill()
        }
        #expect(await waitUntil(timeout: .seconds(30)) { stagedBytes(in: bob.inbox) > 16 << 20 }, "data arrives")
        try receiver.suspend()
        let stopped = ContinuousClock.now
        #expect(await sender.waitForOutput(containing: "reconnecting", timeout: .seconds(15)), "\(sender.stderr)")
        // The sender counts from the last byte the receiver acknowledged, not from what its own
        // socket buffers still took.
        let noticed = ContinuousClock.now - stopped
        #expect(noticed >= .milliseconds(1_800) && noticed < .milliseconds(3_500), "noticed after \(noticed); the limit is 2 s")
        #expect(sender.stderr.contains("the receiver took no data for 2 s"), "\(sender.stderr)")
        try receiver.resume()
        #expect(await sender.waitForOutput(containing: "resuming: ", timeout: .seconds(20)), "\(sender.stderr)")
    }

    @Test func aSenderTerminatedWhileTheReceiverTakesNothingEndsAtOnceAndDoesNotClaimItWasTold() async throws {
        let dir = TemporaryDirectory("e2e-sigstop-term")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeSparseFile(dir.at("disk.img"), size: 4 << 30)
        let (receiver, address) = try await receiver(bob, into: dir.at("received"))
        // (Raw, for the bytes to stay in flight: see the test above.)
        let sender = alice.start(["send", dir.at("disk.img"), "--to", address, "--no-compress"])
        defer { receiver.forceKill() }
        #expect(await waitUntil(timeout: .seconds(30)) { stagedBytes(in: bob.inbox) > 16 << 20 }, "data arrives")
        try receiver.suspend()
        // The sender's writes now wait for a receiver that takes nothing (30 s before it counts as stalled).
        try await Task.sleep(for: .seconds(1))
        sender.signal(SIGTERM)
        let terminated = ContinuousClock.now
        let sent = await sender.wait(timeout: .seconds(10))
        let took = ContinuousClock.now - terminated
        #expect(took < .seconds(2), "SIGTERM took \(took)")
        #expect(sent.status == 128 + SIGTERM, "\(sent.stderr)")
        #expect(sent.stderr.contains("the receiver could not be told"), "\(sent.stderr)")
        #expect(!sent.stderr.contains("the receiver was told"), "\(sent.stderr)")
    }
}
