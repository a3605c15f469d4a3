import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `share history`: what `share send` and `share receive` recorded, in both directions.
@Suite(.serialized) struct HistoryTests {
    func history(_ machine: TestMachine, _ extra: [String] = []) throws -> [[String: Any]] {
        let result = machine.run(["history", "--json"] + extra)
        #expect(result.status == 0)
        return try #require((try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [[String: Any]])
    }

    @Test func bothSidesRecordCompletedDeclinedAndFailedTransfers() throws {
        let dir = TemporaryDirectory("history-e2e")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("a.txt"), "hello\n")
        FileTree.makeFolder(dir.at("Notes.bundle"))
        FileTree.writeText(dir.at("Notes.bundle/page.txt"), "page\n")
        #expect(alice.run(["history"]).stdout == "No transfers yet.\n")

        let receiver = bob.start([
            "receive", "--port", "0", "--dir", dir.at("in"), "--accept", "all", "--once", "--json",
        ])
        let port = try #require(receiver.listeningPort())
        #expect(alice.run(["send", dir.at("a.txt"), dir.at("Notes.bundle"), "--to", "127.0.0.1:\(port)"]).status == 0)
        #expect(receiver.wait(timeout: .seconds(30)).status == 0)

        let asking = bob.start(["receive", "--port", "0", "--dir", dir.at("in"), "--once", "--json"])
        let askPort = try #require(asking.listeningPort())
        #expect(alice.run(["send", dir.at("a.txt"), "--to", "127.0.0.1:\(askPort)"]).status == 1)
        _ = asking.wait(timeout: .seconds(30))
        #expect(
            alice.run(["send", dir.at("a.txt"), "--to", "127.0.0.1:\(askPort)"]).status == 1, "nobody listens any more")

        let sent = try history(alice)
        #expect(sent.map { $0["direction"] as? String } == ["sent", "sent", "sent"])
        #expect(sent.map { $0["outcome"] as? String } == ["completed", "declined", "failed"])
        let first = sent[0]
        #expect((first["peer"] as? [String: Any])?["name"] as? String == "bob")
        #expect(((first["peer"] as? [String: Any])?["fingerprint"] as? String)?.count == 64)
        let items = try #require(first["items"] as? [[String: Any]])
        #expect(items.map { $0["name"] as? String } == ["a.txt", "Notes.bundle"])
        #expect(items.map { $0["bytes"] as? Int } == [6, 5])
        #expect(items.map { $0["location"] as? String } == [dir.at("in/a.txt"), dir.at("in/Notes.bundle")])
        #expect(first["bytes"] as? Int == 11)
        #expect(first["files"] as? Int == 2)
        #expect(
            (sent[1]["reason"] as? String)?.hasPrefix("the receiver declined the offer: it has no terminal") == true)
        let declinedBy = try #require(sent[1]["peer"] as? [String: Any])
        #expect(declinedBy["name"] as? String == "bob", "the receiver answered: its name is known")
        #expect(
            declinedBy["fingerprint"] as? String == (first["peer"] as? [String: Any])?["fingerprint"] as? String,
            "a send that did not complete keeps the key the connection proved")
        #expect((sent[2]["reason"] as? String)?.contains("connection refused") == true)
        #expect(
            (sent[2]["peer"] as? [String: Any])?["name"] as? String == "127.0.0.1:\(askPort)",
            "the peer as the user named it")

        let received = try history(bob)
        #expect(received.map { $0["direction"] as? String } == ["received", "received"])
        #expect(received.map { $0["outcome"] as? String } == ["completed", "declined"])
        let got = try #require(received[0]["items"] as? [[String: Any]])
        #expect(got.map { $0["outcome"] as? String } == ["placed", "placed"])
        #expect(got.map { $0["location"] as? String } == [dir.at("in/a.txt"), dir.at("in/Notes.bundle")])
        #expect((received[1]["items"] as? [[String: Any]])?.map { $0["outcome"] as? String } == ["notDelivered"])

        // Names and places, never contents.
        let raw = FileTree.readText(bob.home + "/.local/state/share/history.jsonl")
        #expect(raw.split(separator: "\n").count == 2)
        #expect(!raw.contains("hello") && !raw.contains("page\\n"))

        let text = alice.run(["history", "--limit", "2"]).stdout.split(separator: "\n")
        #expect(text.count == 4)
        // A declined send names the receiver that answered, with its key; one that reached nobody
        // names it as the user did.
        #expect(text[0].contains("  sent to \"bob\" ("), "\(text[0])")
        #expect(
            text[0].hasSuffix(
                "1 item, 6 bytes  declined: the receiver declined the offer: it has no terminal to ask its user on and no desktop notifications; it accepts without asking only with --accept everyone or trusted"
            ))
        #expect(text[1] == "    a.txt: not delivered")
        #expect(text[2].contains("  sent to \"127.0.0.1:\(askPort)\"  1 item, 6 bytes  failed: "))
    }

    @Test func aVerifiedSenderIsListedUnderItsPinnedName() throws {
        let dir = TemporaryDirectory("history-pinned")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("a.txt"), "hello\n")
        let identity = try #require(
            jsonObject(alice.run(["identity", "--json"]).stdout.replacingOccurrences(of: "\n", with: "")))
        let fingerprint = try #require(identity["fingerprint"] as? String)
        FileTree.writeText(
            bob.config + "/trust.json",
            #"{"blocked":[],"peers":[{"fingerprint":"\#(fingerprint)","name":"Alice's laptop","firstSeen":"2026-01-01T00:00:00Z","verification":"code"}]}"#
        )

        let receiver = bob.start([
            "receive", "--port", "0", "--dir", dir.at("in"), "--accept", "trusted", "--once", "--json",
        ])
        let port = try #require(receiver.listeningPort())
        #expect(alice.run(["send", dir.at("a.txt"), "--to", "127.0.0.1:\(port)"]).status == 0)
        #expect(receiver.wait(timeout: .seconds(30)).status == 0)
        let peer = try #require(try history(bob).first?["peer"] as? [String: Any])
        #expect(peer["name"] as? String == "alice")
        #expect(peer["pinnedName"] as? String == "Alice's laptop")
        #expect(peer["fingerprint"] as? String == fingerprint)
        #expect(bob.run(["history"]).stdout.contains("received from \"alice\" (verified as \"Alice's laptop\", "))
    }
}
