import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `share send FILE...` without `--to`, on a real pseudo-terminal, choosing among receivers on
/// simulated LAN hosts (real avahi-daemons, real mDNS).
@Suite(.serialized, .enabled(if: SimulatedLAN.shouldRun, Comment(rawValue: SimulatedLAN.skipReason)))
struct PeerPickerTerminalTests {
    static let prefix = "shpick"

    /// A user on a simulated host: a home with its own identity and settings.
    struct User {
        let home: String
        let environment: [String: String]

        init(_ name: String, in directory: TemporaryDirectory) {
            home = directory.at(name)
            FileTree.makeFolder(home)
            environment = [
                "HOME": home, "SHARE_CONFIG_DIR": home + "/.config/share", "XDG_CONFIG_HOME": home + "/.config",
                "XDG_DATA_HOME": home + "/.local/share", "XDG_DOWNLOAD_DIR": home + "/Downloads",
                "PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "TERM": "xterm",
            ]
        }
    }

    /// `share receive --accept everyone --name NAME` on `host`, once it is published.
    func receiver(_ lan: SimulatedLAN, on host: String, name: String, user: User) async throws -> HostProcess {
        let process = try lan.run(
            on: host, ShareBinary.path, ["receive", "--name", name, "--accept", "everyone", "--json", "--port", "0"],
            environment: user.environment, label: "receive on \(host)")
        _ = try await process.waitForLine("published", within: .seconds(20)) { $0.contains("\"event\":\"published\"") }
        return process
    }

    /// `share ARGS` on `host`, on a pseudo-terminal.
    func terminal(_ lan: SimulatedLAN, on host: String, user: User, _ arguments: [String]) -> PseudoTerminalProcess {
        let words = [SimulatedLAN.script, "run", host, ShareBinary.path] + arguments
        let environment = SimulatedLAN.environment(prefix: Self.prefix).merging(user.environment) { $1 }
        return PseudoTerminalProcess(command: words.map { "'\($0)'" }.joined(separator: " "), environment: environment)
    }

    @Test func choosesOneOrSeveralReceiversWithTheKeys() async throws {
        let lan = try SimulatedLAN(hosts: ["a", "b", "c"], prefix: Self.prefix)
        defer { lan.down() }
        let dir = TemporaryDirectory("picker")
        let alice = User("alice", in: dir)
        let bob = User("bob", in: dir)
        let carol = User("carol", in: dir)
        let desk = try await receiver(lan, on: "a", name: "desk", user: alice)
        defer { desk.terminate() }
        let laptop = try await receiver(lan, on: "c", name: "laptop", user: carol)
        defer { laptop.terminate() }
        FileTree.writeText(dir.at("note.txt"), "picked\n")

        // Typing filters; enter sends to the receiver under the cursor.
        let one = terminal(lan, on: "b", user: bob, ["send", dir.at("note.txt")])
        #expect(one.waitForOutput(containing: "laptop"), "\(one.output)")
        #expect(one.output.contains("desk"))
        one.type("lap")
        #expect(one.waitForOutput(containing: "Filter: lap"))
        one.type("\r")
        #expect(one.waitForOutput(containing: "Does it? [y/N]"), "first contact: compare the code")
        one.type("y\n")
        #expect(one.wait(timeout: .seconds(60)) == 0, "\(one.output)")
        #expect(one.output.contains("Sent 1 item to \"laptop\""))
        #expect(FileTree.readText(carol.home + "/Downloads/note.txt") == "picked\n")
        #expect(!FileManager.default.fileExists(atPath: alice.home + "/Downloads/note.txt"))

        // Space chooses several; the arrow keys move.
        let both = terminal(lan, on: "b", user: bob, ["send", dir.at("note.txt")])
        #expect(both.waitForOutput(containing: "laptop"), "\(both.output)")
        #expect(both.waitForOutput(containing: "desk"))
        both.type(" ")
        both.type("\u{1B}[B")
        both.type(" ")
        #expect(both.waitForOutput(containing: "2 chosen"))
        both.type("\r")
        #expect(both.waitForOutput(containing: "Does it? [y/N]"), "desk is met for the first time; laptop is verified now")
        both.type("y\n")
        #expect(both.wait(timeout: .seconds(60)) == 0, "\(both.output)")
        #expect(both.output.contains("Sent 1 item to \"desk\""))
        #expect(both.output.contains("Sent 1 item to \"laptop\""))
        #expect(FileTree.readText(alice.home + "/Downloads/note.txt") == "picked\n")
        #expect(FileTree.readText(carol.home + "/Downloads/note (2).txt") == "picked\n")

        // Escape sends nothing; the terminal is as it was (echo and line editing back).
        let cancelled = terminal(lan, on: "b", user: bob, ["send", dir.at("note.txt")])
        #expect(cancelled.waitForOutput(containing: "laptop"))
        cancelled.type("\u{1B}")
        #expect(cancelled.wait(timeout: .seconds(20)) == 1)
        #expect(cancelled.output.contains("Error: no receiver was chosen; nothing was sent"))
        #expect(cancelled.output.contains("\u{1B}[?25h"), "the cursor is shown again")
        #expect(!FileManager.default.fileExists(atPath: alice.home + "/Downloads/note (2).txt"))
    }
}
