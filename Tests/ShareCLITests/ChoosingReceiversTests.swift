import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Choosing receivers among those simulated LAN hosts publish (real avahi-daemons, real mDNS):
/// `share send FILE...` without `--to` on a real pseudo-terminal, the file managers' dialog, and
/// shell completion of `--to`.
@Suite(.serialized, .enabled(if: SimulatedLAN.shouldRun, Comment(rawValue: SimulatedLAN.skipReason)))
struct ChoosingReceiversTests {
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

    /// `share receive --accept POLICY --name NAME` on `host`, once it is published.
    func receiver(
        _ lan: SimulatedLAN, on host: String, name: String, user: User, accept: String = "everyone"
    ) async throws -> HostProcess {
        let process = try lan.run(
            on: host, ShareBinary.path, ["receive", "--name", name, "--accept", accept, "--json", "--port", "0"],
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
        #expect(both.wait(timeout: .seconds(60)) == 0, "\(both.output)")
        #expect(both.output.contains("Sent 1 item to \"desk\""))
        #expect(both.output.contains("Sent 1 item to \"laptop\""))
        #expect(FileTree.readText(alice.home + "/Downloads/note.txt") == "picked\n")
        #expect(FileTree.readText(carol.home + "/Downloads/note (2).txt") == "picked\n")
    }

    /// `share receive --name vm` on `host`, once it is published as `published` (Avahi renames the
    /// second of two), and the key it listens with.
    func vm(_ lan: SimulatedLAN, on host: String, user: User, published: String) async throws -> (HostProcess, String) {
        let process = try lan.run(
            on: host, ShareBinary.path, ["receive", "--name", "vm", "--accept", "everyone", "--json", "--port", "0"],
            environment: user.environment, label: "receive on \(host)")
        let listening = try await process.waitForLine("listening", within: .seconds(20)) { $0.contains("\"event\":\"listening\"") }
        let key = (try? JSONSerialization.jsonObject(with: Data(listening.line.utf8)) as? [String: Any])?["fingerprint"] as? String
        _ = try await process.waitForLine("published as \(published)", within: .seconds(20)) {
            $0.contains("\"event\":\"published\"") && $0.contains("\"name\":\"\(published)\"")
        }
        return (process, key ?? "")
    }

    @Test func aChosenRowIsSentToTheMachineItShowsAfterSameNameMachinesSwappedNames() async throws {
        let lan = try SimulatedLAN(hosts: ["a", "b", "c"], prefix: Self.prefix)
        defer { lan.down() }
        let dir = TemporaryDirectory("picker-swap")
        let alice = User("alice", in: dir)
        let bob = User("bob", in: dir)
        let carol = User("carol", in: dir)
        FileTree.writeText(dir.at("note.txt"), "picked\n")

        // Two machines called "vm": alice's takes the name, carol's becomes "vm #2", and bob
        // verifies each as he sees it.
        var (first, aliceKey) = try await vm(lan, on: "a", user: alice, published: "vm")
        var (second, carolKey) = try await vm(lan, on: "c", user: carol, published: "vm #2")
        FileTree.makeFolder(bob.home + "/.config/share")
        FileTree.writeText(
            bob.home + "/.config/share/trust.json",
            #"{"blocked":[],"peers":["#
                + [(aliceKey, "vm"), (carolKey, "vm #2")].map { key, name in
                    #"{"fingerprint":"\#(key)","name":"\#(name)","firstSeen":"2026-01-01T00:00:00Z","verification":"code"}"#
                }.joined(separator: ",") + "]}")

        // They restart in the other order and swap names.
        first.terminate()
        second.terminate()
        _ = await first.exitStatus(within: .seconds(10))
        _ = await second.exitStatus(within: .seconds(10))
        (second, _) = try await vm(lan, on: "c", user: carol, published: "vm")
        defer { second.terminate() }
        (first, _) = try await vm(lan, on: "a", user: alice, published: "vm #2")
        defer { first.terminate() }

        // The first row is "vm", carol's machine now; the second "vm #2", alice's. Each row goes to
        // the machine it shows.
        for (keys, row, verifiedAs, downloads, other) in [
            ("", "vm", "vm #2", carol.home, alice.home), ("\u{1B}[B", "vm #2", "vm", alice.home, carol.home),
        ] {
            let picker = terminal(lan, on: "b", user: bob, ["send", dir.at("note.txt")])
            #expect(picker.waitForOutput(containing: "claims to be your verified \"vm #2\""), "\(picker.output)")
            #expect(picker.waitForOutput(containing: "claims to be your verified \"vm\""), "\(picker.output)")
            picker.type(keys + "\r")
            #expect(picker.wait(timeout: .seconds(60)) == 0, "\(picker.output)")
            #expect(
                picker.output.contains("Sent 1 item to \"\(verifiedAs)\" (verified), calling itself \"\(row)\""), "\(picker.output)")
            #expect(!picker.output.contains("not visible nearby"))
            #expect(FileTree.readText(downloads + "/Downloads/note.txt") == "picked\n", "the row \(row) went to its machine")
            #expect(!FileManager.default.fileExists(atPath: other + "/Downloads/note.txt"))
            try? FileManager.default.removeItem(atPath: downloads + "/Downloads/note.txt")
        }
    }

    @Test func escapeSendsNothingAndIsNoFailure() async throws {
        let lan = try SimulatedLAN(hosts: ["a", "b"], prefix: Self.prefix)
        defer { lan.down() }
        let dir = TemporaryDirectory("picker-escape")
        let alice = User("alice", in: dir)
        let bob = User("bob", in: dir)
        let desk = try await receiver(lan, on: "a", name: "desk", user: alice)
        defer { desk.terminate() }
        FileTree.writeText(dir.at("note.txt"), "picked\n")

        // Choosing not to send is not an error; the terminal is as it was (echo and line editing back).
        let cancelled = terminal(lan, on: "b", user: bob, ["send", dir.at("note.txt")])
        #expect(cancelled.waitForOutput(containing: "desk"), "\(cancelled.output)")
        cancelled.type("\u{1B}")
        #expect(cancelled.wait(timeout: .seconds(20)) == 0, "\(cancelled.output)")
        #expect(cancelled.output.contains("Nothing sent."))
        #expect(!cancelled.output.contains("Error"))
        #expect(cancelled.output.contains("\u{1B}[?25h"), "the cursor is shown again")
        #expect(!FileManager.default.fileExists(atPath: alice.home + "/Downloads/note.txt"))
    }

    @Test(.enabled(if: DesktopSession.missingForServer.isEmpty || SimulatedLAN.isRequired))
    func theFileManagersDialogSendsAndNotifies() async throws {
        let lan = try SimulatedLAN(hosts: ["a", "b", "c"], prefix: Self.prefix)
        defer { lan.down() }
        let dir = TemporaryDirectory("dialog")
        let alice = User("alice", in: dir)
        let bob = User("bob", in: dir)
        let carol = User("carol", in: dir)
        let desk = try await receiver(lan, on: "a", name: "desk", user: alice)
        defer { desk.terminate() }
        let attic = try await receiver(lan, on: "c", name: "attic", user: carol, accept: "trusted")
        defer { attic.terminate() }
        let desktop = try DesktopSession(notificationServer: true)
        defer { desktop.stop() }
        FileTree.writeText(dir.at("Report.pdf"), "%PDF-1.7")

        // The dialog as installed, with zenity replaced by a script that answers as a user would.
        let installed = try InstallTests.make(
            "install-files",
            [
                "DESTDIR": dir.at("root"), "PREFIX": "/usr",
                "BUILD": (ShareBinary.path as NSString).deletingLastPathComponent,
            ])
        #expect(installed.status == 0, "\(installed.output)")
        let zenity = dir.at("zenity")
        FileTree.writeText(
            zenity,
            """
            #!/bin/sh
            echo "$*" >> '\(dir.at("zenity.log"))'
            case "$*" in
                *--progress*) cat > /dev/null ;;
                *--list*) cat > '\(dir.at("listed"))'; cat '\(dir.at("choice"))' ;;
            esac

            """)
        chmod(zenity, 0o755)
        let environment = bob.environment.merging([
            "SHARE": ShareBinary.path, "SHARE_ZENITY": zenity, "DBUS_SESSION_BUS_ADDRESS": desktop.busAddress,
        ]) { $1 }
        func dialog(choosing choice: String) async throws -> Int32? {
            FileTree.writeText(dir.at("choice"), choice + "\n")
            let process = try lan.run(
                on: "b", dir.at("root/usr/libexec/share/share-send-dialog"), [dir.at("Report.pdf")],
                environment: environment,
                label: "dialog on b")
            return await process.exitStatus(within: .seconds(60))
        }

        #expect(try await dialog(choosing: "desk") == 0, "\(FileTree.readText(dir.at("zenity.log")))")
        #expect(
            FileTree.readText(dir.at("listed")) == "FALSE\nattic\nFALSE\ndesk\n", "the receivers nearby, none ticked")
        #expect(FileTree.readText(alice.home + "/Downloads/Report.pdf") == "%PDF-1.7")
        #expect(await waitUntil { desktop.displayed() == 1 })
        desktop.dismiss()
        let sent = try #require(desktop.history().first)
        #expect(sent.summary == "Sent 1 item to \"desk\"")
        #expect(sent.body.hasPrefix("Sent 1 item to \"desk\""))
        #expect(sent.body.hasSuffix("SHA-256 verified."))
        #expect(sent.application == "share")

        // A receiver that declines: the notification says why, urgently.
        #expect(try await dialog(choosing: "attic") == 1)
        #expect(await waitUntil { desktop.displayed() == 1 })
        desktop.dismiss()
        let failed = try #require(desktop.history().first)
        #expect(failed.summary == "Sending to \"attic\" failed")
        #expect(
            failed.body.hasPrefix(
                "the receiver declined the offer: the receiver accepts only from peers it has verified"))
        #expect(failed.urgency == "CRITICAL")
        #expect(!FileManager.default.fileExists(atPath: carol.home + "/Downloads/Report.pdf"))
    }

    @Test func completionOffersTheReceiversAvahiSees() async throws {
        let lan = try SimulatedLAN(hosts: ["a", "b", "c"], prefix: Self.prefix)
        defer { lan.down() }
        let dir = TemporaryDirectory("completion-lan")
        let desk = try await receiver(lan, on: "a", name: "desk", user: User("alice", in: dir))
        defer { desk.terminate() }
        let room = try await receiver(lan, on: "c", name: "living room", user: User("carol", in: dir))
        defer { room.terminate() }
        let bob = User("bob", in: dir)
        FileTree.writeText(dir.at("share.bash"), await ShareBinary.run(["completion", "bash"]).stdout)
        let script = """
            source '\(dir.at("share.bash"))'
            COMP_WORDS=(share send note.txt --to "")
            COMP_CWORD=4
            _share
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        var environment = bob.environment
        environment["PATH"] = (ShareBinary.path as NSString).deletingLastPathComponent + ":/usr/bin:/bin"
        let shell = try lan.run(on: "b", "/bin/bash", ["-c", script], environment: environment, label: "bash on b")
        #expect(await shell.exitStatus(within: .seconds(20)) == 0)
        try await Task.sleep(for: .milliseconds(50))
        #expect(shell.lines == ["desk", "living\\ room"], "\(shell.transcript)")
    }
}
