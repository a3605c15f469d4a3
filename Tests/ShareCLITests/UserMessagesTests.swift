import Foundation
import ShareKit
import ShareTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What `share` tells its user: commands it suggests paste into a shell as they are shown, advice
/// says who runs what where, and summaries count what was sent.
@Suite(.serialized) struct UserMessagesTests {
    /// `share receive --json` on `machine`, and the port it listens on.
    func jsonReceiver(_ machine: TestMachine, _ folder: String, _ more: [String]) throws -> (RunningShare, Int) {
        let receiver = machine.start(["receive", "--port", "0", "--dir", folder] + more + ["--json"])
        return (receiver, Int(try #require(receiver.listeningPort())))
    }

    @Test func theNoteAboutAnUnverifiedReceiverQuotesItsCommandOnce() throws {
        let dir = TemporaryDirectory("message-note")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("note.txt"), "hello")
        let (receiver, port) = try jsonReceiver(bob, dir.at("in"), ["--accept", "everyone"])
        defer {
            receiver.signal(SIGTERM)
            _ = receiver.wait()
        }
        let sent = alice.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(
            sent.stderr.hasSuffix(
                "This note is shown once per receiver. To verify it, run this on a terminal while 'share receive' runs "
                    + "there on a terminal: share trust verify '127.0.0.1:\(port)'\n"), "\(sent.stderr)")
        #expect(!sent.stderr.contains("''"), "no quotes inside quotes")
    }

    @Test func aSuggestedArgumentPastesIntoAShellAsItIs() throws {
        for name in ["bob-desk", "Bob's desk", "a 'quoted' \"name\" $HOME `x` \\ end", ""] {
            let shell = try Subprocess(
                executable: "/bin/sh", arguments: ["-c", "printf %s " + ShellWord.quoted(name)], environment: [:],
                stdinPipe: false)
            let printed = String(decoding: shell.readToEnd(), as: UTF8.self)
            #expect(shell.reap(block: true) == 0)
            #expect(printed == name)
        }
    }

    @Test func aTextIsCountedAsATextNotAsNoFiles() async throws {
        let dir = TemporaryDirectory("message-text")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("a.txt"), "attached\n")
        let (receiver, port) = try jsonReceiver(bob, dir.at("in"), ["--accept", "everyone"])
        defer {
            receiver.signal(SIGTERM)
            _ = receiver.wait()
        }
        let alone = await alice.run(["send", "--text", "hi", "--to", "127.0.0.1:\(port)"])
        #expect(alone.status == 0, "\(alone.stderr)")
        #expect(alone.stdout.hasPrefix("Sent 1 item to \"bob\""), "\(alone.stdout)")
        #expect(alone.stdout.contains(" at 127.0.0.1:\(port): 2 bytes, 1 text in "), "\(alone.stdout)")
        #expect(!alone.stdout.contains("0 files"))
        #expect(!alone.stdout.contains("SHA-256"), "a text travels in the offer: no file was hashed")

        let both = await alice.run(["send", "--text", "see attached", dir.at("a.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(both.status == 0, "\(both.stderr)")
        #expect(both.stdout.contains(": 21 bytes, 1 text and 1 file in "), "\(both.stdout)")
        #expect(both.stdout.contains(", SHA-256 verified."))
    }

    @Test func aMissingHomeIsAnErrorAndNothingIsCreated() async throws {
        let dir = TemporaryDirectory("message-home")
        let home = dir.at("gone")
        var environment = ProcessInfo.processInfo.environment
        for key in ["SHARE_CONFIG_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_DOWNLOAD_DIR", "XDG_CACHE_HOME"] {
            environment.removeValue(forKey: key)
        }
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        environment["HOME"] = home
        FileTree.writeText(dir.at("note.txt"), "hello")
        let expected =
            "Error: the home folder '\(home)' (HOME) does not exist, and share keeps its identity, settings and "
            + "received files in it; create it, or set HOME to the folder that should hold them\n"
        for arguments in [
            ["receive", "--port", "0", "--once"], ["send", dir.at("note.txt"), "--to", "127.0.0.1:9"], ["identity"],
            ["config", "set", "accept", "trusted"],
        ] {
            let result = await ShareBinary.run(arguments, environment: environment, timeout: .seconds(15))
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            #expect(result.stderr == expected, "\(arguments)")
            #expect(!FileManager.default.fileExists(atPath: home), "\(arguments) created nothing")
        }
        // Commands that keep nothing still work.
        let completion = await ShareBinary.run(["completion", "bash"], environment: environment)
        #expect(completion.status == 0)
        #expect(!FileManager.default.fileExists(atPath: home))
    }
}
