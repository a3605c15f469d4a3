import Foundation
import ShareTestSupport
import Testing

/// kill -9 at every phase of a transfer, through the real binary on loopback: the
/// receiver stops itself at a named point (`SHARE_TEST_PAUSE_AT`, test-only: ``TestPause``), then the
/// sender or the receiver is killed with SIGKILL and run again. Every time the documents arrive
/// exactly once with the bytes sent, nothing partial is under a final name, no `Name (2)` appears,
/// and the inbox holds neither an entry nor a kept partial transfer afterwards.
@Suite(.serialized) struct KillAtEveryPhaseTests {
    /// A connection accepted (before TLS), the sender's HELLO read, the offer read (being decided),
    /// the first file received, the commit before and after its decision point, an import about to
    /// hand a document over and one that has (its inbox copy not yet removed).
    static let phases = ["handshake", "offer", "prompt", "data", "commit", "committed", "import", "imported"]
    /// The phases before the receiver accepted the offer.
    static let beforeAcceptance: Set = ["handshake", "offer", "prompt"]

    /// Two items: a file and a bundle of two files.
    struct Setup {
        let dir: TemporaryDirectory
        let alice: TestMachine
        let bob: TestMachine
        let pausingBob: TestMachine
        let folder: String

        init(_ name: String, phase: String) {
            dir = TemporaryDirectory(name)
            let quick = ["SHARE_STALL_TIMEOUT": "2"]
            alice = TestMachine("alice", in: dir, extra: quick)
            bob = TestMachine("bob", in: dir, extra: quick)
            pausingBob = TestMachine("bob", in: dir, extra: quick.merging(["SHARE_TEST_PAUSE_AT": phase]) { $1 })
            folder = dir.at("received")
            FileTree.writeFile(dir.at("report.bin"), size: 512 << 10, seed: 71)
            FileTree.makeFolder(dir.at("Album"))
            FileTree.writeFile(dir.at("Album/1.raw"), size: 128 << 10, seed: 72)
            FileTree.writeFile(dir.at("Album/2.raw"), size: 128 << 10, seed: 73)
        }

        var documents: [String] { [dir.at("report.bin"), dir.at("Album")] }

        func receive(_ machine: TestMachine, port: UInt16 = 0) -> RunningShare {
            machine.start(["receive", "--port", String(port), "--dir", folder, "--accept", "all", "--json"])
        }

        /// `share send` of the documents to the receiver on `port`.
        func send(to port: UInt16) -> [String] { ["send"] + documents + ["--to", "127.0.0.1:\(port)"] }

        /// A receiver that stops itself at the phase, and a sender (with `options`) started towards
        /// it, once the receiver has stopped there.
        func startUntilPaused(
            phase: String, senderOptions options: [String] = []
        ) async throws -> (receiver: RunningShare, sender: RunningShare, port: UInt16) {
            let receiver = receive(pausingBob)
            let port = try #require(await receiver.listeningPort())
            let sender = alice.start(send(to: port) + options)
            #expect(await receiver.waitForOutput(containing: "share: paused at \(phase)"), "\(receiver.stderr)")
            return (receiver, sender, port)
        }

        /// Everything arrived once, whole, and nothing is left behind in the inbox.
        func expectDeliveredOnce(_ context: String) async {
            #expect(FileTree.allPaths(folder) == ["Album", "Album/1.raw", "Album/2.raw", "report.bin"], "\(context)")
            for path in ["report.bin", "Album/1.raw", "Album/2.raw"] {
                #expect(FileTree.digest(folder + "/" + path) == FileTree.digest(dir.at(path)), "\(path): \(context)")
            }
            let listed = jsonObject(await bob.run(["inbox", "list", "--json"]).stdout)
            #expect((listed?["entries"] as? [Any])?.isEmpty == true, "no entry left: \(String(describing: listed))")
            #expect((listed?["partial"] as? [Any])?.isEmpty == true, "nothing kept: \(String(describing: listed))")
            // Not even the record of the completed offer: the sender closed after its receipt.
            let clean = await waitUntil(timeout: .seconds(5)) { FileTree.allPaths(bob.inbox).isEmpty }
            #expect(clean, "\(FileTree.allPaths(bob.inbox))")
        }
    }

    @Test(arguments: phases)
    func aReceiverKilledAtThisPhaseAndStartedAgainGetsEverythingOnce(phase: String) async throws {
        let setup = Setup("kill-receiver-\(phase)", phase: phase)
        let (first, sender, port) = try await setup.startUntilPaused(
            phase: phase, senderOptions: ["--retry-for", "60s"])
        defer {
            first.forceKill()
            sender.forceKill()
        }
        first.forceKill()
        _ = await first.wait(timeout: .seconds(10))

        let second = setup.receive(setup.bob, port: port)
        defer { second.forceKill() }
        var sent = await sender.wait(timeout: .seconds(60))
        if Self.beforeAcceptance.contains(phase) {
            // Nothing was accepted yet: the sender does not reconnect by itself (README: a send
            // retries once the receiver accepted); it fails, and runs again.
            #expect(sent.status == 1, "\(phase): \(sent.stderr)")
            #expect(FileTree.allPaths(setup.folder).isEmpty)
            _ = await second.listeningPort()
            sent = await setup.alice.run(setup.send(to: port))
        }
        #expect(sent.status == 0, "\(phase): \(sent.stderr)")
        if ["commit", "committed", "import", "imported"].contains(phase) {
            // Before the decision point the items go back where they were received, after it the
            // offer is delivered: either way every byte was already there.
            #expect(sent.stdout.contains("were already there)"), "nothing sent again: \(sent.stdout)")
        }
        await setup.expectDeliveredOnce("\(phase): \(sent.stdout) \(second.stdout)")
    }

    @Test(arguments: phases)
    func aSenderKilledAtThisPhaseAndRunAgainDeliversEverythingOnce(phase: String) async throws {
        let setup = Setup("kill-sender-\(phase)", phase: phase)
        let (receiver, first, port) = try await setup.startUntilPaused(phase: phase)
        defer {
            receiver.forceKill()
            first.forceKill()
        }
        first.forceKill()
        _ = await first.wait(timeout: .seconds(10))
        try receiver.resume()
        // The receiver finds out that its sender is gone (or finishes what it was doing) first.
        if phase != "handshake" && phase != "offer" {
            let settled = await waitUntil(timeout: .seconds(20)) {
                jsonLines(receiver.stdout).contains { ["failed", "received"].contains($0["event"] as? String) }
            }
            #expect(settled, "\(receiver.stdout)")
        }

        let again = await setup.alice.run(setup.send(to: port))
        #expect(again.status == 0, "\(phase): \(again.stderr)")
        if ["commit", "committed", "import", "imported"].contains(phase) {
            // The receiver committed after its sender died: told so, the sender sends nothing again.
            #expect(again.stdout.contains("were already there)"), "\(again.stdout)")
        }
        await setup.expectDeliveredOnce("\(phase): \(again.stdout) \(receiver.stdout)")
    }
}
