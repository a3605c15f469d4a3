import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Verification codes, pinning, changed keys, policies and blocking, between two share processes.
@Suite(.serialized) struct TrustEndToEndTests {
    /// Runs `share ARGS` as `machine` on a pseudo-terminal.
    func interactive(_ machine: TestMachine, _ arguments: [String]) -> PseudoTerminalProcess {
        let command = ([ShareBinary.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        return PseudoTerminalProcess(command: command, environment: machine.environment)
    }

    /// The port a receiver on a terminal printed.
    func port(of terminal: PseudoTerminalProcess) throws -> Int {
        #expect(terminal.waitForOutput(containing: "on port"))
        return try #require(terminal.output.split(separator: " ").drop { $0 != "port" }.dropFirst().first.flatMap { Int($0) })
    }

    /// The code shown after `marker` in a terminal's output.
    func code(after marker: String, in text: String) -> String? {
        guard let range = text.range(of: marker) else { return nil }
        let digits = text[range.upperBound...].drop { $0 == " " }.prefix(15)
        return digits.count == 15 ? String(digits) : nil
    }

    /// alice and bob compare codes with `share trust verify` and remember each other.
    func pair(_ alice: TestMachine, _ bob: TestMachine, inbox: String) throws {
        let receiver = interactive(bob, ["receive", "--port", "0", "--dir", inbox])
        let port = try port(of: receiver)
        let verifier = interactive(alice, ["trust", "verify", "127.0.0.1:\(port)"])
        #expect(verifier.waitForOutput(containing: "Does it? [y/N]"))
        #expect(receiver.waitForOutput(containing: "show the same code? [y/N]"))
        let shownToAlice = code(after: "shows this code:", in: verifier.output)
        let shownToBob = code(after: "code", in: receiver.output.components(separatedBy: "asks to verify").last ?? "")
        #expect(shownToAlice != nil && shownToAlice == shownToBob, "both sides show the same code")
        verifier.type("y\n")
        receiver.type("y\n")
        #expect(verifier.wait() == 0)
        #expect(verifier.output.contains("both sides confirmed the code and remember each other"))
        #expect(receiver.waitForOutput(containing: "it is remembered."))
        receiver.interrupt()
        _ = receiver.wait()
    }

    @Test func verifyingShowsTheSameCodeOnBothSidesAndPinsBoth() throws {
        let dir = TemporaryDirectory("trust-verify")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        try pair(alice, bob, inbox: dir.at("inbox"))
        let aliceKnows = try #require(jsonObject(alice.run(["trust", "list", "--json"]).stdout.replacingOccurrences(of: "\n", with: "")))
        let bobKnows = try #require(jsonObject(bob.run(["trust", "list", "--json"]).stdout.replacingOccurrences(of: "\n", with: "")))
        #expect((aliceKnows["verified"] as? [[String: Any]])?.map { $0["name"] as? String } == ["bob"])
        #expect((bobKnows["verified"] as? [[String: Any]])?.map { $0["name"] as? String } == ["alice"])
        #expect(FileTree.allPaths(dir.at("inbox")).isEmpty, "verifying sends nothing")
    }

    @Test func firstContactOnSendShowsTheSameCodeToBothUsers() throws {
        let dir = TemporaryDirectory("trust-first")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("note.txt"), "hello")
        let receiver = interactive(bob, ["receive", "--port", "0", "--dir", dir.at("inbox"), "--once"])
        let port = try port(of: receiver)
        let sender = interactive(alice, ["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(sender.waitForOutput(containing: "Does it? [y/N]"))
        #expect(receiver.waitForOutput(containing: "Accept, and remember \"alice\" as verified? [y/N]"))
        let senderCode = code(after: "shows this code:", in: sender.output)
        let receiverCode = code(after: "check that it shows this code:", in: receiver.output)
        #expect(senderCode != nil && senderCode == receiverCode)
        sender.type("y\n")
        receiver.type("y\n")
        #expect(sender.wait() == 0)
        #expect(receiver.wait() == 0)
        #expect(FileTree.allPaths(dir.at("inbox")) == ["note.txt"])
        #expect(alice.run(["trust", "list"]).stdout.contains("bob"))
        #expect(bob.run(["trust", "list"]).stdout.contains("alice"))
    }

    @Test func aChangedKeyIsRefusedLoudlyOnBothSides() throws {
        let dir = TemporaryDirectory("trust-changed")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        try pair(alice, bob, inbox: dir.at("inbox"))
        FileTree.writeText(dir.at("note.txt"), "hello")

        // alice reinstalls: a new key under the same name. bob refuses her, whatever his policy.
        try FileManager.default.removeItem(atPath: alice.config + "/identity.key")
        try FileManager.default.removeItem(atPath: alice.config + "/identity.crt")
        let receiver = bob.start(["receive", "--port", "0", "--dir", dir.at("inbox"), "--accept", "everyone"])
        #expect(receiver.waitForOutput(containing: "on port"))
        let port = try #require(receiver.stdout.split(separator: " ").drop { $0 != "port" }.dropFirst().first.flatMap { Int($0) })
        let sent = alice.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(sent.status == 1)
        #expect(sent.stderr.contains("the receiver knows \"alice\" with another key and refused this connection"))
        #expect(receiver.waitForOutput(containing: "presented a different key than the one you verified"))
        #expect(FileTree.allPaths(dir.at("inbox")).isEmpty)

        // bob reinstalls too: alice (who verified the old bob) refuses to send to the new one.
        try FileManager.default.removeItem(atPath: bob.config + "/identity.key")
        try FileManager.default.removeItem(atPath: bob.config + "/identity.crt")
        receiver.signal(SIGTERM)
        _ = receiver.wait()
        let next = bob.start(["receive", "--port", "0", "--dir", dir.at("inbox"), "--accept", "everyone"])
        #expect(next.waitForOutput(containing: "on port"))
        let nextPort = try #require(next.stdout.split(separator: " ").drop { $0 != "port" }.dropFirst().first.flatMap { Int($0) })
        let refused = alice.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(nextPort)"])
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("Error: the key of \"bob\" has changed since you verified it"))
        #expect(refused.stderr.contains("Nothing was sent. If you expected this, run 'share trust remove "))
        #expect(FileTree.allPaths(dir.at("inbox")).isEmpty)

        // After the user acts, the new key is accepted.
        let known = try #require(jsonObject(alice.run(["trust", "list", "--json"]).stdout.replacingOccurrences(of: "\n", with: "")))
        let oldBob = try #require(((known["verified"] as? [[String: Any]])?.first?["fingerprint"] as? String)?.prefix(16))
        #expect(alice.run(["trust", "remove", String(oldBob)]).status == 0)
        let stillRefused = alice.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(nextPort)"])
        #expect(stillRefused.stderr.contains("the receiver knows \"alice\" with another key"), "bob still knows the old alice")
        #expect(bob.run(["trust", "remove", "alice"]).stdout.hasPrefix("Forgot \"alice\""))
        #expect(alice.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(nextPort)"]).status == 0)
        next.signal(SIGTERM)
        _ = next.wait()
    }

    @Test func trustedAcceptsVerifiedPeersSilentlyAndRefusesOthers() throws {
        let dir = TemporaryDirectory("trust-trusted")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        let carol = TestMachine("carol", in: dir)
        try pair(alice, bob, inbox: dir.at("inbox"))
        FileTree.writeText(dir.at("note.txt"), "hello")
        let receiver = bob.start(["receive", "--port", "0", "--dir", dir.at("inbox"), "--accept", "trusted", "--json"])
        let port = try #require(receiver.listeningPort())
        let stranger = carol.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(stranger.status == 1)
        #expect(stranger.stderr.hasPrefix("Error: the receiver declined the offer: the receiver accepts only from peers it has verified"))
        let friend = alice.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)", "--json"])
        #expect(friend.status == 0)
        #expect(jsonObject(friend.stdout)?["verification"] as? String == "verified")
        #expect(FileTree.allPaths(dir.at("inbox")) == ["note.txt"])
        receiver.signal(SIGTERM)
        _ = receiver.wait()
    }

    @Test func aBlockedPeerIsRefusedEvenByEveryone() throws {
        let dir = TemporaryDirectory("trust-block")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        let aliceFingerprint = try #require(jsonObject(alice.run(["identity", "--json"]).stdout.replacingOccurrences(of: "\n", with: ""))?["fingerprint"] as? String)
        let blocked = bob.run(["trust", "block", aliceFingerprint])
        #expect(blocked.status == 0)
        #expect(bob.run(["trust", "list"]).stdout.contains("blocked"))
        FileTree.writeText(dir.at("note.txt"), "hello")
        let receiver = bob.start(["receive", "--port", "0", "--dir", dir.at("inbox"), "--accept", "everyone", "--json"])
        let port = try #require(receiver.listeningPort())
        let sent = alice.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(sent.status == 1)
        #expect(sent.stderr == "Error: the receiver declined the offer: the receiver refuses offers from this sender\n")
        #expect(FileTree.allPaths(dir.at("inbox")).isEmpty)
        receiver.signal(SIGTERM)
        _ = receiver.wait()
    }

    @Test func everyoneModeEndsOnItsOwn() throws {
        let dir = TemporaryDirectory("trust-everyone")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("note.txt"), "hello")
        let receiver = bob.start(["receive", "--port", "0", "--dir", dir.at("inbox"), "--accept", "everyone", "--everyone-for", "2s", "--json"])
        let port = try #require(receiver.listeningPort())
        #expect(alice.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"]).status == 0)
        #expect(receiver.waitForOutput(containing: "\"event\":\"policy\",\"accept\":\"ask\"", timeout: .seconds(10)))
        let later = alice.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(later.status == 1)
        #expect(later.stderr.contains("it has no terminal to ask its user on"))
        #expect(FileTree.allPaths(dir.at("inbox")) == ["note.txt"])
        receiver.signal(SIGTERM)
        _ = receiver.wait()
    }

    @Test func promptsFromOnePeerAreLimited() throws {
        let dir = TemporaryDirectory("trust-flood")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("note.txt"), "hello")
        let receiver = bob.start(["receive", "--port", "0", "--dir", dir.at("inbox"), "--json"])
        let port = try #require(receiver.listeningPort())
        var errors: [String] = []
        for _ in 0..<4 { errors.append(alice.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"]).stderr) }
        #expect(errors.prefix(3).allSatisfy { $0.contains("no terminal to ask its user on") })
        #expect(errors[3] == "Error: the receiver declined the offer: too many offers from this sender; try again in a minute\n")
        receiver.signal(SIGTERM)
        _ = receiver.wait()
    }
}
