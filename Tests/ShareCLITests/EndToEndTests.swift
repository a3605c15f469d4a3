import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `share receive` and `share send` as a user runs them: two processes, two identities, loopback.
@Suite(.serialized) struct EndToEndTests {
    @Test func sendsAndReportsAsJSON() throws {
        let dir = TemporaryDirectory("e2e-json")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("a.txt"), "hello\n")
        FileTree.makeFolder(dir.at("Bugs.sbz/Empty"))
        FileTree.writeFile(dir.at("Bugs.sbz/data.bin"), size: 200_000, seed: 9)

        let receiver = bob.start(["receive", "--port", "0", "--dir", dir.at("inbox"), "--accept", "all", "--once", "--json"])
        let port = try #require(receiver.listeningPort())
        let sent = alice.run(["send", dir.at("a.txt"), dir.at("Bugs.sbz"), "--to", "127.0.0.1:\(port)", "--json"])
        let received = receiver.wait(timeout: .seconds(30))

        #expect(sent.status == 0)
        #expect(sent.stderr == "", "no progress and no errors when stderr is not a terminal")
        let report = try #require(jsonObject(sent.stdout))
        #expect(report["ok"] as? Bool == true)
        #expect(report["files"] as? Int == 2)
        #expect(report["bytes"] as? Int == 200_006)
        let peer = try #require(report["peer"] as? [String: Any])
        #expect(peer["name"] as? String == "bob")
        let items = try #require(report["items"] as? [[String: Any]])
        #expect(items.map { $0["name"] as? String } == ["a.txt", "Bugs.sbz"])
        #expect(items.map { $0["bundle"] as? Bool } == [false, true])
        #expect(items.map { $0["path"] as? String } == [dir.at("inbox/a.txt"), dir.at("inbox/Bugs.sbz")])
        #expect(items.map { $0["outcome"] as? String } == ["placed", "placed"])
        #expect(report["to"] as? String == "127.0.0.1:\(port)")
        let verified = try #require(report["verifiedFiles"] as? [[String: Any]])
        #expect(verified.first?["sha256"] as? String == "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03")

        #expect(received.status == 0)
        let events = jsonLines(received.stdout)
        // Without avahi-daemon here, a `not-discoverable` event comes too.
        #expect(events.map { $0["event"] as? String }.filter { $0 != "not-discoverable" } == ["listening", "received"])
        let paths = (events.last?["items"] as? [[String: Any]])?.compactMap { $0["path"] as? String }
        #expect(paths == [dir.at("inbox/a.txt"), dir.at("inbox/Bugs.sbz")])
        let outcomes = (events.last?["items"] as? [[String: Any]])?.compactMap { $0["outcome"] as? String }
        #expect(outcomes == ["placed", "placed"], "no application is registered")
        #expect(FileTree.allPaths(dir.at("inbox")) == ["Bugs.sbz", "Bugs.sbz/Empty", "Bugs.sbz/data.bin", "a.txt"])
        #expect(FileTree.allPaths(bob.inbox).isEmpty, "the inbox copies are gone once placed")
    }

    @Test func textIsCompressedUnlessNoCompressTheSettingSaysOffOrTheReceiverIsOnThisMachine() throws {
        let dir = TemporaryDirectory("e2e-zstd")
        // Sender and receiver share this machine, where a receiver next door gets raw bytes unless
        // the sender is told to treat it as a distant one.
        let alice = TestMachine("alice", in: dir, extra: ["SHARE_COMPRESS_THIS_MACHINE": "1"])
        let carol = TestMachine("carol", in: dir)
        let bob = TestMachine("bob", in: dir)
        let text = String(repeating: "2026-01-01T00:00:00 host sshd[42]: Accepted publickey for ada\n", count: 40_000)
        FileTree.writeText(dir.at("server.log"), text)
        let receiver = bob.start(["receive", "--port", "0", "--dir", dir.at("inbox"), "--accept", "all", "--json"])
        defer {
            receiver.signal(SIGTERM)
            _ = receiver.wait(timeout: .seconds(30))
        }
        let port = try #require(receiver.listeningPort())
        func payloadBytes(_ extra: [String], from sender: TestMachine? = nil) throws -> Int? {
            let sent = (sender ?? alice).run(["send", dir.at("server.log"), "--to", "127.0.0.1:\(port)", "--json"] + extra)
            #expect(sent.status == 0, "\(sent.stderr)")
            let report = try #require(jsonObject(sent.stdout))
            #expect(report["bytes"] as? Int == text.utf8.count)
            return report["payloadBytes"] as? Int
        }
        let compressed = try #require(try payloadBytes([]), "zstd was in use")
        #expect(compressed < text.utf8.count / 10, "\(compressed) bytes on the wire")
        #expect(try payloadBytes([], from: carol) == text.utf8.count, "a compressible log to the receiver next door went raw")
        #expect(try payloadBytes(["--no-compress"]) == nil, "--no-compress: raw, zstd not even offered")
        #expect(alice.run(["config", "set", "compression", "off"]).status == 0)
        #expect(try payloadBytes([]) == nil, "the setting 'compression' off")
        #expect(FileTree.allPaths(dir.at("inbox")) == ["server (2).log", "server (3).log", "server (4).log", "server.log"])
        #expect(FileTree.readText(dir.at("inbox/server (4).log")) == text)
    }

    @Test func withoutATerminalAskDeclinesOnBothSides() throws {
        let dir = TemporaryDirectory("e2e-noterm")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("a.txt"), "hello\n")
        let receiver = bob.start(["receive", "--port", "0", "--dir", dir.at("inbox"), "--once"])
        #expect(receiver.waitForOutput(containing: "on port"))
        let port = try #require(receiver.stdout.split(separator: " ").drop { $0 != "port" }.dropFirst().first.flatMap { Int($0) })

        let sent = alice.run(["send", dir.at("a.txt"), "--to", "127.0.0.1:\(port)"])
        let received = receiver.wait(timeout: .seconds(30))

        #expect(sent.status == 1)
        #expect(sent.stderr == "Error: the receiver declined the offer: it has no terminal to ask its user on and no desktop notifications; it accepts without asking only with --accept everyone or trusted\n")
        #expect(received.status == 1)
        let declined = try #require(received.stderr.split(separator: "\n").first { $0.hasPrefix("Declined") })
        #expect(declined.hasPrefix("Declined an offer from \"alice\" at 127.0.0.1:"))
        #expect(declined.hasSuffix(": no terminal to ask on (run 'share receive --accept everyone' or '--accept trusted' to decide without asking)."))
        #expect(FileTree.allPaths(dir.at("inbox")).isEmpty)
    }

    @Test(arguments: ["y", "n"]) func asksOnATerminal(_ answer: String) throws {
        let dir = TemporaryDirectory("e2e-ask")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("Report.pdf"), "%PDF")
        // `script` gives the receiver a pseudo-terminal, as a user's shell would.
        let share = ShareBinary.path
        let command = "\(share) receive --port 0 --dir \(dir.at("inbox")) --once"
        let terminal = PseudoTerminalProcess(command: command, environment: bob.environment)
        #expect(terminal.waitForOutput(containing: "on port"))
        let port = try #require(terminal.output.split(separator: " ").drop { $0 != "port" }.dropFirst().first.flatMap { Int($0) })

        let sender = alice.start(["send", dir.at("Report.pdf"), "--to", "127.0.0.1:\(port)"])
        #expect(terminal.waitForOutput(containing: "Accept? [y/N]"))
        #expect(terminal.output.contains("\"alice\" (new: not verified) at 127.0.0.1:"))
        #expect(terminal.output.contains("offers 1 item, 4 bytes:"))
        #expect(terminal.output.contains("Report.pdf  4 bytes"))
        #expect(terminal.output.contains("\"alice\" sends unattended and shows no verification code: accepting does not verify it."))
        terminal.type(answer + "\n")
        let sent = sender.wait(timeout: .seconds(30))
        let status = terminal.wait()

        if answer == "y" {
            #expect(sent.status == 0)
            #expect(status == 0)
            #expect(FileTree.allPaths(dir.at("inbox")) == ["Report.pdf"])
            // Nobody compared a code: neither side remembers the other, and alice is told once.
            #expect(!bob.run(["trust", "list"]).stdout.contains("alice"))
            #expect(sent.stderr.hasPrefix("Note: \"bob\" is not verified (no terminal here to compare a code on)."))
        } else {
            #expect(sent.status == 1)
            #expect(sent.stderr == "Error: the receiver declined the offer: its user declined\n")
            #expect(status == 1)
            #expect(FileTree.allPaths(dir.at("inbox")).isEmpty)
        }
    }

    @Test func progressIsDrawnOnATerminal() throws {
        let dir = TemporaryDirectory("e2e-progress")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        let big = dir.at("big.img")
        FileTree.writeSparseFile(big, size: 1 << 30)
        let receiver = bob.start(["receive", "--port", "0", "--dir", dir.at("inbox"), "--accept", "everyone", "--once", "--json"])
        let port = try #require(receiver.listeningPort())
        let command = [ShareBinary.path, "send", big, "--to", "127.0.0.1:\(port)"].map { "'\($0)'" }.joined(separator: " ")
        let terminal = PseudoTerminalProcess(command: command, environment: alice.environment)
        // The receiver accepts without asking a person: no code is shown, nothing to confirm.
        #expect(terminal.wait(timeout: .seconds(120)) == 0)
        #expect(!terminal.output.contains("[y/N]"))
        _ = receiver.wait(timeout: .seconds(30))
        // The progress line: label, percentage, bytes done of total, rate, ETA; redrawn in place.
        #expect(terminal.output.contains("Sending to 127.0.0.1:\(port)"))
        #expect(terminal.output.contains(" / 1.1 GB"))
        #expect(terminal.output.contains("MB/s"))
        #expect(terminal.output.contains("ETA "))
        #expect(terminal.output.contains("\r\u{1B}[K"))
        #expect(terminal.output.contains("Sent 1 item to \"bob\""))
    }

    @Test func aReceiverThatIsNotListeningIsAClearError() throws {
        let dir = TemporaryDirectory("e2e-refused")
        let alice = TestMachine("alice", in: dir)
        FileTree.writeText(dir.at("a.txt"), "a")
        let result = alice.run(["send", dir.at("a.txt"), "--to", "127.0.0.1:9"])
        #expect(result.status == 1)
        #expect(result.stderr == "Error: nobody is receiving at 127.0.0.1:9 (connection refused); start 'share receive' there, or check the port\n")
    }

    @Test func aMissingFileIsAClearError() throws {
        let dir = TemporaryDirectory("e2e-missing")
        let alice = TestMachine("alice", in: dir)
        let result = alice.run(["send", dir.at("nope.txt"), "--to", "127.0.0.1:9"])
        #expect(result.status == 1)
        #expect(result.stderr == "Error: cannot read '\(dir.at("nope.txt"))': No such file or directory\n")
    }

    @Test func aKilledSenderLeavesNothingAndTheReceiverGoesOn() throws {
        let dir = TemporaryDirectory("e2e-killsender")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        // A sparse 4 GiB file: cheap to make, takes seconds to send.
        let big = dir.at("big.img")
        FileTree.writeSparseFile(big, size: 4 << 30)
        let inbox = dir.at("inbox")
        let receiver = bob.start(["receive", "--port", "0", "--dir", inbox, "--accept", "all", "--json"])
        let port = try #require(receiver.listeningPort())

        let sender = alice.start(["send", big, "--to", "127.0.0.1:\(port)"])
        #expect(waitUntil { stagedBytes(in: bob.inbox) > 1 << 20 }, "data should reach the staging folder")
        sender.signal(SIGKILL)
        _ = sender.wait()

        #expect(receiver.waitForOutput(containing: "\"event\":\"failed\""))
        let failed = try #require(jsonLines(receiver.stdout).first { $0["event"] as? String == "failed" })
        #expect((failed["error"] as? String)?.hasPrefix("the connection was lost while receiving file 1 of 1") == true)
        #expect(waitUntil { FileTree.allPaths(inbox).isEmpty }, "no partial file")
        // What arrived is kept for the same sender to continue (README: Interrupted transfers),
        // never as an inbox entry.
        #expect(!FileTree.allPaths(bob.inbox).contains { !$0.hasPrefix(".share-staging/r-") && $0 != ".share-staging" })
        let listed = jsonObject(bob.run(["inbox", "list", "--json"]).stdout)
        #expect((listed?["partial"] as? [Any])?.count == 1, "\(String(describing: listed))")
        #expect((listed?["entries"] as? [Any])?.isEmpty == true)

        // The receiver keeps working.
        FileTree.writeText(dir.at("small.txt"), "still here")
        let again = alice.run(["send", dir.at("small.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(again.status == 0)
        #expect(FileTree.allPaths(inbox) == ["small.txt"])
        receiver.signal(SIGTERM)
        #expect(receiver.wait(timeout: .seconds(10)).status == 128 + SIGTERM)
    }

    @Test func aKilledReceiverIsAnErrorForTheSenderAndWhatItHadIsKeptForTheRetry() throws {
        let dir = TemporaryDirectory("e2e-killreceiver")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        let big = dir.at("big.img")
        FileTree.writeSparseFile(big, size: 4 << 30)
        let inbox = dir.at("inbox")
        let receiver = bob.start(["receive", "--port", "0", "--dir", inbox, "--accept", "all", "--json"])
        let port = try #require(receiver.listeningPort())

        // Without retrying (ResumeEndToEndTests has the sender that waits for the receiver's return),
        // and raw: zstd would make the sparse file's zeros a few KiB on the wire, no longer in flight.
        let sender = alice.start(["send", big, "--to", "127.0.0.1:\(port)", "--no-retry", "--no-compress"])
        #expect(waitUntil { stagedBytes(in: bob.inbox) > 1 << 20 })
        receiver.signal(SIGKILL)
        _ = receiver.wait()
        let sent = sender.wait(timeout: .seconds(30))

        #expect(sent.status == 1)
        #expect(sent.stderr.hasPrefix("Error: "))
        #expect(sent.stderr.contains("127.0.0.1:\(port)"))
        #expect(!FileManager.default.fileExists(atPath: inbox + "/big.img"), "never under its final name")
        #expect(FileTree.allPaths(inbox).isEmpty, "nothing in the receive folder")
        #expect(FileTree.allPaths(bob.inbox).first == ".share-staging", "a killed receiver cannot clean up")
        #expect(!FileTree.allPaths(bob.inbox).contains { !$0.hasPrefix(".share-staging") }, "no inbox entry")

        // The next receiver keeps the part that arrived, for the sender to continue, and nothing else.
        let next = bob.start(["receive", "--port", "0", "--dir", inbox, "--accept", "all", "--json"])
        _ = try #require(next.listeningPort())
        let kept = (jsonObject(bob.run(["inbox", "list", "--json"]).stdout)?["partial"] as? [[String: Any]]) ?? []
        #expect(kept.count == 1 && (kept.first?["heldBytes"] as? Int ?? 0) > 0, "\(kept)")
        #expect(FileTree.allPaths(inbox).isEmpty)
        let id = try #require(kept.first?["id"] as? String)
        #expect(bob.run(["inbox", "remove", id]).status == 0)
        #expect(FileTree.allPaths(bob.inbox).allSatisfy { $0 == ".share-staging" }, "\(FileTree.allPaths(bob.inbox))")
        next.signal(SIGINT)
        #expect(next.wait(timeout: .seconds(10)).status == 128 + SIGINT)
    }

    @Test func identityIsCreatedOnceWithAPrivateKey() throws {
        let dir = TemporaryDirectory("e2e-identity")
        let alice = TestMachine("alice", in: dir)
        let first = alice.run(["identity", "--json"])
        let second = alice.run(["identity", "--json"])
        #expect(first.status == 0)
        #expect(first.stdout == second.stdout)
        let identity = try #require(jsonObject(first.stdout.replacingOccurrences(of: "\n", with: "")))
        #expect(identity["name"] as? String == "alice")
        #expect((identity["fingerprint"] as? String)?.count == 64)
        var info = stat()
        #expect(stat(alice.config + "/identity.key", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        let human = alice.run(["identity"])
        #expect(human.stdout.hasPrefix("Name:         alice\nFingerprint:  "))
    }
}
