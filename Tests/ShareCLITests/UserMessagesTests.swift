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

    @Test func aReceiverNobodyCanSeeSaysItsAddressesAndCountsATextAsAText() async throws {
        let dir = TemporaryDirectory("message-hidden-receiver")
        let alice = TestMachine("alice", in: dir)
        // No system bus: avahi-daemon cannot be reached, so the receiver is not discoverable.
        let bob = TestMachine("bob", in: dir, extra: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(dir.at("no-bus"))"])
        let receiver = bob.start(["receive", "--port", "0", "--dir", dir.at("in"), "--accept", "everyone"])
        defer {
            receiver.signal(SIGTERM)
            _ = receiver.wait()
        }
        #expect(await receiver.waitForOutput(containing: "Press Ctrl-C to stop."))
        let portText = receiver.stdout.components(separatedBy: " on port ").dropFirst().first?.prefix { $0.isNumber }
        let port = try #require(portText.flatMap { Int($0) })
        #expect(await receiver.waitForOutput(containing: "Warning: not discoverable"))
        let warning = receiver.stderr.components(separatedBy: "Warning: not discoverable").last ?? ""
        #expect(!warning.contains("HOST"), "a real address to type, not a placeholder: \(warning)")
        #expect(warning.contains("Senders can still use --to ") && warning.contains(":\(port)."), "\(warning)")

        let sent = await alice.run(["send", "--text", "hi", "--to", "127.0.0.1:\(port)"])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(await receiver.waitForOutput(containing: "Received 1 item"))
        #expect(receiver.stdout.contains(": 2 bytes, 1 text in "), "\(receiver.stdout)")
        #expect(!receiver.stdout.contains("0 files"), "the receiver counts a text as a text too")
    }

    @Test func anAskingReceiverThatCannotAskSaysSoWhenItStarts() async throws {
        let dir = TemporaryDirectory("message-nobody")
        let bob = TestMachine("bob", in: dir)
        // Started from a script: no terminal, and no desktop session.
        let asking = bob.start(["receive", "--port", "0", "--dir", dir.at("in"), "--json"])
        let trusted = bob.start(["receive", "--port", "0", "--dir", dir.at("in"), "--accept", "trusted", "--json"])
        defer {
            for receiver in [asking, trusted] {
                receiver.signal(SIGTERM)
                _ = receiver.wait()
            }
        }
        #expect(await asking.listeningPort() != nil)
        #expect(await trusted.listeningPort() != nil)
        #expect(await asking.waitForOutput(containing: "Warning: nobody can be asked here"))
        #expect(
            asking.stderr.contains(
                "Warning: nobody can be asked here (no terminal, no desktop notifications): every offer is declined. "
                    + "Use --accept trusted or --accept everyone to decide without asking."), "\(asking.stderr)")
        #expect(!trusted.stderr.contains("nobody can be asked"), "a receiver that never asks has nothing to warn about")
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
