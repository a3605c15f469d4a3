import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `share send --text TEXT`: a short text that travels in the offer, is shown to the receiver's
/// user before they decide, and is kept as a `.txt` document.
@Suite(.serialized) struct SendTextTests {
    @Test func aTextArrivesAsATextDocumentAloneOrWithFiles() async throws {
        let dir = TemporaryDirectory("text-send")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("a.txt"), "attached\n")
        let receiver = bob.start(["receive", "--port", "0", "--dir", dir.at("in"), "--accept", "everyone", "--json"])
        defer { receiver.signal(SIGTERM) }
        let port = try #require(await receiver.listeningPort())

        let alone = await alice.run(["send", "--text", "héllo\nsecond line", "--to", "127.0.0.1:\(port)"])
        #expect(alone.status == 0, "\(alone.stderr)")
        #expect(alone.stdout.contains("  Text.txt -> "))
        #expect(FileTree.readText(dir.at("in/Text.txt")) == "héllo\nsecond line")

        let named = await alice.run([
            "send", "--text", "see attached", dir.at("a.txt"), "--name", "Shopping list", "--to", "127.0.0.1:\(port)",
            "--json",
        ])
        #expect(named.status == 0, "\(named.stderr)")
        let report = try #require(jsonObject(named.stdout))
        #expect((report["items"] as? [[String: Any]])?.map { $0["name"] as? String } == ["Shopping list.txt", "a.txt"])
        #expect(FileTree.readText(dir.at("in/Shopping list.txt")) == "see attached")
        #expect(FileTree.readText(dir.at("in/a.txt")) == "attached\n")

        // Again: a new name, never over the first.
        #expect(await alice.run(["send", "--text", "again", "--to", "127.0.0.1:\(port)"]).status == 0)
        #expect(FileTree.readText(dir.at("in/Text (2).txt")) == "again")
        #expect(FileTree.readText(dir.at("in/Text.txt")) == "héllo\nsecond line")
    }

    @Test func theReceiversPromptShowsTheTextAndItsLinkAsText() throws {
        let dir = TemporaryDirectory("text-prompt")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        let command = [ShareBinary.path, "receive", "--port", "0", "--dir", dir.at("in"), "--once"].map { "'\($0)'" }
            .joined(separator: " ")
        let receiver = PseudoTerminalProcess(command: command, environment: bob.environment)
        #expect(receiver.waitForOutput(containing: "Press Ctrl-C to stop."))
        let port = try #require(
            receiver.output.split(separator: " ").drop { $0 != "port" }.dropFirst().first.flatMap { Int($0) })
        let sender = alice.start(["send", "--text", "Call me:\nhttps://example.com/x \u{1b}[31mred", "--to", "127.0.0.1:\(port)"])
        #expect(receiver.waitForOutput(containing: "Accept? [y/N]"))
        #expect(receiver.output.contains("  Text.txt  "))
        #expect(receiver.output.contains("    │ Call me:"))
        #expect(receiver.output.contains("    │ https://example.com/x "), "the address is shown as it is")
        #expect(!receiver.output.contains("\u{1b}[31m"), "the sender's escapes are not passed to the terminal")
        receiver.type("y\n")
        #expect(receiver.wait() == 0)
        #expect(sender.wait().status == 0)
        #expect(FileTree.readText(dir.at("in/Text.txt")) == "Call me:\nhttps://example.com/x \u{1b}[31mred")
    }

    @Test(arguments: [
        (["send", "--text", " \n", "--to", "h:1"], "The text to send is empty"),
        (
            ["send", "--text", String(repeating: "x", count: 16_385), "--to", "h:1"],
            "The text is 16385 bytes; a text can be at most 16384 bytes (send a longer one as a file, or from standard input with '-')"
        ),
        (["send", "--text", "hi", "--name", "a/b", "--to", "h:1"], "The name 'a/b' is not a file name (no '/', not '.' or '..')"),
        (["send", "--to", "h:1"], "Missing expected argument '<path> ...' (or --text)"),
    ])
    func misusesAreUsageErrors(_ arguments: [String], _ message: String) {
        let dir = TemporaryDirectory("text-usage")
        let alice = TestMachine("alice", in: dir)
        let result = alice.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: \(message)\nUsage: share send [<path> ...] [--text <text>] "), "\(result.stderr)")
    }
}
