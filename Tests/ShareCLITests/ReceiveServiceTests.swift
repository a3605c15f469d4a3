import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `share receive --service` and the user unit share-receive.service: readiness, status, journal
/// lines, reload on SIGHUP, a clean stop; under a real `systemd --user` when it can run here.
@Suite(.serialized) struct ReceiveServiceTests {
    /// The unit as `make install` writes it, for `share` in `bindir`.
    static func unit(bindir: String) -> String {
        let template = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: "Install/share-receive.service.in").path
        return FileTree.readText(template).replacingOccurrences(of: "@bindir@", with: bindir)
    }

    /// The unit's ExecStart, split into words.
    static func execStart(bindir: String) throws -> [String] {
        let line = try #require(unit(bindir: bindir).split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        return line.dropFirst("ExecStart=".count).split(separator: " ").map(String.init)
    }

    /// The port in the last "on port N" of `text`.
    static func port(in text: String) -> Int? {
        guard let range = text.range(of: "on port ", options: .backwards) else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }

    @Test func theUnitsCommandLineTellsSystemdAndTheJournalWhatItDoes() async throws {
        let dir = TemporaryDirectory("service-notify")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("a.txt"), "hello\n")
        #expect(await bob.run(["config", "set", "port", "0"]).status == 0)
        #expect(await bob.run(["config", "set", "accept", "everyone"]).status == 0)

        // Exactly the unit's command line, with systemd's two channels faked: NOTIFY_SOCKET, and
        // stdout on a stream named by JOURNAL_STREAM (as the journal's would be).
        let bindir = (ShareBinary.path as NSString).deletingLastPathComponent
        let command = try Self.execStart(bindir: bindir)
        #expect(command == [ShareBinary.path, "receive", "--service"])
        let notify = try NotifySocket(path: dir.at("notify.sock"))
        let log = dir.at("journal.log")
        FileTree.writeText(log, "")
        var info = stat()
        #expect(stat(log, &info) == 0)
        var environment = bob.environment
        environment["NOTIFY_SOCKET"] = notify.path
        environment["JOURNAL_STREAM"] = "\(info.st_dev):\(info.st_ino)"
        let service = try Subprocess(
            executable: "/bin/sh", arguments: ["-c", #"exec "$@" >> "$LOG" 2>&1"#, "sh"] + command,
            environment: environment.merging(["LOG": log]) { $1 }, stdinPipe: false)

        let ready = try #require(notify.messages(until: "READY=1"), "READY=1 once it listens")
        let status = try #require(ready.last?.split(separator: "\n").first { $0.hasPrefix("STATUS=") })
        #expect(status.hasPrefix("STATUS=Receiving as \"bob\" on port "))
        #expect(status.hasSuffix(" (everyone); 0 received, 0 declined, 0 failed"))
        let port = try #require(Self.port(in: String(status)))

        #expect(await alice.run(["send", dir.at("a.txt"), "--to", "127.0.0.1:\(port)"]).status == 0)
        let counted = try #require(
            notify.messages(
                until: "STATUS=Receiving as \"bob\" on port \(port) (everyone); 1 received, 0 declined, 0 failed"))
        #expect(!counted.isEmpty)
        #expect(FileTree.readText(bob.home + "/Downloads/a.txt") == "hello\n")

        // Reload: the new settings apply, and systemd hears RELOADING=1 then READY=1.
        #expect(await bob.run(["config", "set", "name", "bob-desk"]).status == 0)
        #expect(await bob.run(["config", "set", "dir", dir.at("new-folder")]).status == 0)
        service.signal(SIGHUP)
        let reloaded = try #require(notify.messages(until: "READY=1"))
        #expect(reloaded.first?.hasPrefix("RELOADING=1\nMONOTONIC_USEC=") == true)
        let newStatus = try #require(reloaded.last?.split(separator: "\n").first { $0.hasPrefix("STATUS=") })
        #expect(newStatus.hasPrefix("STATUS=Receiving as \"bob-desk\" on port "))
        let newPort = try #require(Self.port(in: String(newStatus)))
        #expect(await alice.run(["send", dir.at("a.txt"), "--to", "127.0.0.1:\(newPort)"]).status == 0)
        #expect(await waitUntil { FileTree.readText(dir.at("new-folder/a.txt")) == "hello\n" })

        service.terminate()
        #expect(notify.messages(until: "STOPPING=1") != nil)
        #expect(await waitUntil { service.reap(block: false) != nil })
        #expect(service.reap(block: false) == 0, "a stop is not a failure (no restart, no failed state)")

        // One line per event, each with its priority for the journal; no progress, no ANSI.
        let lines = FileTree.readText(log).split(separator: "\n").map(String.init)
        #expect(lines.allSatisfy { $0.hasPrefix("<") && !$0.contains("\u{1B}") && !$0.contains("\r") }, "\(lines)")
        #expect(lines.first?.hasPrefix("<6>No desktop notifications for now: ") == true, "there is no session bus here")
        #expect(lines.contains { $0.hasPrefix("<6>Receiving as \"bob\" on port \(port) (fingerprint ") })
        #expect(
            lines.contains { $0.hasPrefix("<4>Warning: not discoverable") }
                || lines.contains { $0.hasPrefix("<6>Visible nearby") })
        let received = lines.filter { $0.hasPrefix("<6>Received 1 item from \"alice\" (") }
        #expect(received.count == 2)
        #expect(received.first?.hasSuffix(" SHA-256 verified. ~/Downloads/a.txt") == true)
        #expect(lines.contains("<6>Reloading the settings: waiting for transfers in progress, then listening anew."))
        #expect(
            lines.contains {
                $0.hasPrefix("<6>Receiving as \"bob-desk\" on port \(newPort) ")
                    && $0.contains("saving to \(dir.at("new-folder"))")
            })
    }

    @Test func aSettingsFileThatCannotBeReadKeepsTheSettingsInUse() async throws {
        let dir = TemporaryDirectory("service-bad-reload")
        let bob = TestMachine("bob", in: dir)
        #expect(await bob.run(["config", "set", "port", "0"]).status == 0)
        let notify = try NotifySocket(path: dir.at("notify.sock"))
        let service = try Subprocess(
            executable: ShareBinary.path, arguments: ["receive", "--service"],
            environment: bob.environment.merging(["NOTIFY_SOCKET": notify.path]) { $1 }, stdinPipe: false)
        let first = try #require(notify.messages(until: "READY=1"))
        FileTree.writeText(bob.config + "/settings.json", #"{"port": "many"}"#)
        service.signal(SIGHUP)
        let again = try #require(notify.messages(until: "READY=1"))
        #expect(again.last?.contains("STATUS=Receiving as \"bob\"") == true)
        #expect(first.last.flatMap { Self.port(in: $0) } != nil)
        service.terminate()
        #expect(await waitUntil { service.reap(block: false) != nil })
        #expect(service.reap(block: false) == 0)
        let output = String(decoding: service.readToEnd(), as: UTF8.self)
        #expect(
            output.contains(
                "Error: cannot read '\(bob.config)/settings.json': 'port': expected a number, found \"many\""))
        #expect(output.contains("; keeping the settings in use"))
        #expect(!output.contains("<3>"), "no priorities without the journal")
    }

    @Test(.enabled(if: DesktopSession.missingForServer.isEmpty || SimulatedLAN.isRequired))
    func theServiceNotifiesWhatItReceivedAndOpenOpensTheFolder() async throws {
        let dir = TemporaryDirectory("service-notifications")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("a.txt"), "hello\n")
        let big = dir.at("big.img")
        FileTree.writeSparseFile(big, size: 4 << 30)
        #expect(await bob.run(["config", "set", "port", "0"]).status == 0)
        #expect(await bob.run(["config", "set", "accept", "everyone"]).status == 0)
        let desktop = try DesktopSession(notificationServer: true)
        defer { desktop.stop() }
        // xdg-open as the desktop would run it: here it only says what it was asked to open, and
        // that it runs as an ordinary program: no signal ignored (the service ignores SIGTERM, SIGINT
        // and SIGPIPE itself) and the descriptor limit the service was started with (it raised its own).
        FileTree.makeFolder(dir.at("bin"))
        FileTree.writeText(
            dir.at("bin/xdg-open"),
            "#!/bin/sh\nprintf '%s\\n' \"$@\" \"$(ulimit -Sn)\" \"$(grep SigIgn /proc/$$/status)\" > '\(dir.at("opened"))'\n")
        chmod(dir.at("bin/xdg-open"), 0o755)
        var environment = bob.environment.merging(desktop.environment) { $1 }
        environment["PATH"] = dir.at("bin") + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let notify = try NotifySocket(path: dir.at("notify.sock"))
        environment["NOTIFY_SOCKET"] = notify.path
        let service = try Subprocess(
            executable: "/usr/bin/prlimit", arguments: ["--nofile=256:8192", ShareBinary.path, "receive", "--service"],
            environment: environment, stdinPipe: false)
        let status = try #require(notify.messages(until: "READY=1")?.last)
        let port = try #require(Self.port(in: status))

        #expect(await alice.run(["send", dir.at("a.txt"), "--to", "127.0.0.1:\(port)"]).status == 0)
        #expect(await waitUntil { desktop.displayed() == 1 })
        #expect(!FileManager.default.fileExists(atPath: dir.at("opened")), "nothing is opened until the user asks")
        desktop.invoke("open")
        #expect(await waitUntil { FileTree.readText(dir.at("opened")).split(separator: "\n").count == 3 })
        let opened = FileTree.readText(dir.at("opened")).split(separator: "\n").map(String.init)
        #expect(opened.prefix(2) == [bob.home + "/Downloads", "256"], "\(opened)")
        // (glibc's own signal 32, which no program can change, may stay ignored.)
        let ignored = UInt64(opened.last?.split(separator: "\t").last ?? "", radix: 16)
        for signal in [SIGINT, SIGTERM, SIGPIPE] {
            #expect(ignored.map { $0 & (1 << UInt64(signal - 1)) == 0 } == true, "\(signal) in \(opened)")
        }
        #expect(await waitUntil { desktop.displayed() == 0 }, "a used button takes its notification away")
        let shown = try #require(desktop.history().first)
        #expect(shown.summary == "Received a.txt from \"alice\"")
        #expect(shown.body == "a.txt → ~/Downloads/a.txt\n6 bytes, SHA-256 verified")
        #expect(shown.category == "transfer.complete")

        // A failure says why.
        let sender = alice.start(["send", big, "--to", "127.0.0.1:\(port)"])
        #expect(await waitUntil { stagedBytes(in: bob.inbox) > 1 << 20 })
        sender.signal(SIGKILL)
        _ = await sender.wait()
        #expect(await waitUntil { desktop.displayed() == 1 })
        desktop.dismiss()
        let failed = try #require(desktop.history().first)
        #expect(failed.summary == "Receiving from \"alice\" failed")
        #expect(failed.body.hasPrefix("the connection was lost while receiving file 1 of 1"))
        #expect(failed.body.hasSuffix(" that arrived is kept for the sender to continue."), "\(failed.body)")
        #expect(failed.category == "transfer.error")
        service.terminate()
        #expect(await waitUntil { service.reap(block: false) != nil })
        let log = String(decoding: service.readToEnd(), as: UTF8.self)
        #expect(log.hasPrefix("Desktop notifications are shown by dunst.\n"))
    }

    @Test(.enabled(if: SimulatedLAN.isRequired || UserSystemd.missingCapabilities.isEmpty))
    func runsUnderARealUserManager() async throws {
        let dir = TemporaryDirectory("service-systemd")
        let alice = TestMachine("alice", in: dir)
        FileTree.writeText(dir.at("a.txt"), "hello\n")
        let systemd = try UserSystemd(state: dir.at("manager"))
        defer { systemd.down() }
        // The unit as installed, plus where its output goes (there is no journald here).
        let bindir = (ShareBinary.path as NSString).deletingLastPathComponent
        FileTree.makeFolder(systemd.unitFolder + "/share-receive.service.d")
        FileTree.writeText(systemd.unitFolder + "/share-receive.service", Self.unit(bindir: bindir))
        FileTree.writeText(
            systemd.unitFolder + "/share-receive.service.d/output.conf",
            "[Service]\nStandardOutput=append:\(dir.at("receive.log"))\nStandardError=inherit\n")
        let bob = ShareBinary.environment(home: systemd.home, config: systemd.home + "/.config/share")
        for (key, value) in [("port", "0"), ("accept", "everyone"), ("name", "bob")] {
            #expect(await ShareBinary.run(["config", "set", key, value], environment: bob).status == 0)
        }

        let started = try systemd.systemctl(["enable", "--now", "share-receive"])
        #expect(started.status == 0, "\(started.output)")
        #expect(try systemd.property("share-receive", "ActiveState") == "active", "active only once READY=1 came")
        let status = try systemd.property("share-receive", "StatusText")
        #expect(status.hasPrefix("Receiving as \"bob\" on port "))
        let port = try #require(Self.port(in: status))
        #expect(await alice.run(["send", dir.at("a.txt"), "--to", "127.0.0.1:\(port)"]).status == 0)
        #expect(
            FileTree.readText(systemd.home + "/Downloads/a.txt") == "hello\n",
            "the unit runs with the user's settings and folders")

        // systemctl --user reload: SIGHUP, the new settings.
        #expect(await ShareBinary.run(["config", "set", "name", "bob-desk"], environment: bob).status == 0)
        #expect(try systemd.systemctl(["reload", "share-receive"]).status == 0)
        #expect(
            await waitUntil {
                (try? systemd.property("share-receive", "StatusText"))?.hasPrefix("Receiving as \"bob-desk\"") == true
            })

        // Restart on failure.
        let pid = try #require(Int32(try systemd.property("share-receive", "MainPID")))
        kill(pid, SIGKILL)
        #expect(await waitUntil(timeout: .seconds(20)) { (try? systemd.property("share-receive", "NRestarts")) == "1" })
        #expect(await waitUntil { (try? systemd.property("share-receive", "ActiveState")) == "active" })

        // A stop is clean.
        #expect(try systemd.systemctl(["stop", "share-receive"]).status == 0)
        #expect(try systemd.property("share-receive", "Result") == "success")
        #expect(try systemd.property("share-receive", "ActiveState") == "inactive")
        let log = FileTree.readText(dir.at("receive.log"))
        #expect(log.contains("Received 1 item from \"alice\""))
        #expect(log.contains("Reloading the settings"))
    }
}
