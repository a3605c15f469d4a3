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
}
