import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What a hostile peer or a careless setting could still get away with, each tried as an
/// attacker or a user would, with the real `share` on both sides.
@Suite(.serialized) struct HardeningTests {
    func mode(_ path: String) -> Int {
        var info = stat()
        return lstat(path, &info) == 0 ? Int(info.st_mode & 0o7777) : -1
    }

    /// `share receive` with the given umask (through a shell), JSON events, and its port.
    func receiver(_ machine: TestMachine, _ folder: String, umask: String = "022", _ more: [String] = []) throws
        -> (process: Process, output: Pipe, port: Int)
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        let arguments = (["receive", "--port", "0", "--dir", folder, "--accept", "everyone", "--json"] + more)
            .map { "'\($0)'" }.joined(separator: " ")
        process.arguments = ["-c", "umask \(umask) && exec '\(ShareBinary.path)' \(arguments)"]
        process.environment = machine.environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        var text = ""
        while !text.contains("\"port\":") {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        let port = try #require(text.components(separatedBy: "\"port\":").last.flatMap { Int($0.prefix { $0.isNumber }) })
        return (process, output, port)
    }

    func stop(_ process: Process) {
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }

    // MARK: 2. Received files do not keep the sender's permission bits

    @Test func receivedDocumentsAreDataWithTheReceiversUmask() throws {
        let dir = TemporaryDirectory("hard-modes")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("photo.jpg"), "jpeg")
        FileTree.makeFolder(dir.at("Album"))
        FileTree.writeText(dir.at("Album/run.sh"), "#!/bin/sh\necho hi\n")
        FileTree.writeText(dir.at("Album/evil.desktop"), "[Desktop Entry]\nExec=sh\n")
        FileTree.writeText(dir.at("tool.AppImage"), "ELF?")
        chmod(dir.at("photo.jpg"), 0o777)
        chmod(dir.at("Album"), 0o777)
        chmod(dir.at("Album/run.sh"), 0o755)
        chmod(dir.at("Album/evil.desktop"), 0o777)
        chmod(dir.at("tool.AppImage"), 0o755)
        let items = [dir.at("photo.jpg"), dir.at("Album"), dir.at("tool.AppImage")]

        let (plain, _, port) = try receiver(bob, dir.at("inbox"))
        #expect(alice.run(["send"] + items + ["--to", "127.0.0.1:\(port)"]).status == 0)
        stop(plain)
        #expect(mode(dir.at("inbox/photo.jpg")) == 0o644)
        #expect(mode(dir.at("inbox/Album")) == 0o755)
        #expect(mode(dir.at("inbox/Album/run.sh")) == 0o644)
        #expect(mode(dir.at("inbox/Album/evil.desktop")) == 0o644)
        #expect(mode(dir.at("inbox/tool.AppImage")) == 0o644)

        // A stricter umask is applied; --keep-executables keeps execute bits inside bundles only.
        let (strict, _, strictPort) = try receiver(bob, dir.at("strict"), umask: "077", ["--keep-executables"])
        #expect(alice.run(["send"] + items + ["--to", "127.0.0.1:\(strictPort)"]).status == 0)
        stop(strict)
        #expect(mode(dir.at("strict/photo.jpg")) == 0o600)
        #expect(mode(dir.at("strict/Album")) == 0o700)
        #expect(mode(dir.at("strict/Album/run.sh")) == 0o700)
        #expect(mode(dir.at("strict/tool.AppImage")) == 0o600, "a file sent on its own is never executable")
    }

    @Test func theAskingPromptSaysWhatABundleHides() throws {
        let dir = TemporaryDirectory("hard-prompt")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        _ = alice.run(["identity", "set-name", "pay\u{AD}pal\u{200B}"])
        FileTree.makeFolder(dir.at("Photos"))
        FileTree.writeText(dir.at("Photos/a.jpg"), "a")
        FileTree.writeText(dir.at("Photos/.hidden"), "b")
        FileTree.writeText(dir.at("Photos/run.sh"), "#!/bin/sh")
        chmod(dir.at("Photos/run.sh"), 0o755)
        symlink("a.jpg", dir.at("Photos/latest"))
        let command = [ShareBinary.path, "receive", "--port", "0", "--dir", dir.at("inbox"), "--once"]
            .map { "'\($0)'" }.joined(separator: " ")
        let terminal = PseudoTerminalProcess(command: command, environment: bob.environment)
        #expect(terminal.waitForOutput(containing: "Press Ctrl-C to stop."))
        let port = try #require(terminal.output.split(separator: " ").drop { $0 != "port" }.dropFirst().first.flatMap { Int($0) })
        let sender = alice.start(["send", dir.at("Photos"), "--to", "127.0.0.1:\(port)"])
        #expect(terminal.waitForOutput(containing: "Accept? [y/N]"))
        let screen = terminal.output
        #expect(screen.contains("\"pay\\u{AD}pal\\u{200B}\" (new: not verified)"), "invisible characters are shown")
        #expect(screen.contains("Photos/  3 files"))
        #expect(screen.contains("holds 1 hidden entry, 1 executable file (they arrive not executable), 1 link"))
        #expect(screen.contains("link Photos/latest -> a.jpg"))
        #expect(screen.contains("hidden Photos/.hidden"), "the hidden file is named, not only counted")
        terminal.type("n\n")
        _ = sender.wait(timeout: .seconds(30))
        _ = terminal.wait()
    }

    // MARK: 3. The receive folder is used through the descriptor opened at the start

    @Test func aReceiveFolderReplacedByALinkIsNotFollowed() throws {
        let dir = TemporaryDirectory("hard-dirfd")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.makeFolder(dir.at("downloads"))
        FileTree.makeFolder(dir.at("elsewhere"))
        FileTree.writeText(dir.at("note.txt"), "for downloads only")
        let (running, output, port) = try receiver(bob, dir.at("downloads"))
        // While the receiver runs, the folder is swapped for a link to another one.
        try FileManager.default.moveItem(atPath: dir.at("downloads"), toPath: dir.at("downloads.old"))
        symlink(dir.at("elsewhere"), dir.at("downloads"))
        let sent = alice.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)", "--json"])
        #expect(sent.status == 0)
        let item = try #require((jsonObject(sent.stdout)?["items"] as? [[String: Any]])?.first)
        #expect(item["outcome"] as? String == "keptInInbox")
        stop(running)
        let events = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let received = try #require(jsonLines(events).first { $0["event"] as? String == "received" })
        let error = ((received["items"] as? [[String: Any]])?.first?["reason"] as? String) ?? ""
        #expect(error.contains("was removed after 'share receive' started") || error.contains("was replaced"), "\(error)")
        #expect(FileTree.allPaths(dir.at("elsewhere")).isEmpty, "nothing landed in the other folder")
        #expect(FileTree.allPaths(dir.at("downloads.old")).isEmpty)
        #expect(bob.run(["inbox", "list"]).stdout.contains("note.txt"), "the document waits in the inbox")
    }

    // MARK: 4. Dangerous settings are refused

    @Test(arguments: ["/", "/proc", "/proc/self", "", "  "]) func aSystemOrEmptyReceiveFolderIsAUsageError(_ folder: String) {
        let dir = TemporaryDirectory("hard-dir")
        let bob = TestMachine("bob", in: dir)
        let result = bob.run(["receive", "--port", "0", "--dir", folder])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: Refusing --dir '\(folder)': "))
    }

    @Test func anOverlongNameInTheSettingsIsRefusedClearly() throws {
        let dir = TemporaryDirectory("hard-settings")
        let bob = TestMachine("bob", in: dir)
        try Data("{\"name\": \"\(String(repeating: "x", count: 300))\"}".utf8).write(to: URL(fileURLWithPath: bob.config + "/settings.json"))
        let result = bob.run(["identity"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("its device name is unusable: the name is 300 bytes long"))
        // set-name replaces the unusable name (without the spaces around the new one).
        #expect(bob.run(["identity", "set-name", " desk "]).stdout == "Device name set to \"desk\" (without the spaces around it).\n")
        #expect(bob.run(["identity"]).status == 0)
    }

    @Test func aKeyThatOthersCouldReadIsNotUsed() throws {
        let dir = TemporaryDirectory("hard-key")
        let bob = TestMachine("bob", in: dir)
        chmod(bob.config + "/identity.key", 0o644)
        let result = bob.run(["identity"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("was readable by other users (mode 644)"))
        #expect(result.stderr.contains("Make a new identity"))
        #expect(mode(bob.config + "/identity.key") == 0o644, "not silently repaired")
    }

    @Test func aConfigFolderOthersCanWriteOrALinkIsRefused() throws {
        let dir = TemporaryDirectory("hard-config")
        let bob = TestMachine("bob", in: dir)
        chmod(bob.config, 0o777)
        let open = bob.run(["identity"])
        #expect(open.status == 1)
        #expect(open.stderr.contains("is writable by other users (mode 777)"))
        chmod(bob.config, 0o700)
        let moved = bob.config + "-real"
        try FileManager.default.moveItem(atPath: bob.config, toPath: moved)
        symlink(moved, bob.config)
        let linked = bob.run(["identity"])
        #expect(linked.status == 1)
        #expect(linked.stderr.contains("is a symbolic link"))
    }

    // MARK: 6. Specific failures reach the other side

    @Test func aReceiverStoppedMidTransferTellsTheSender() throws {
        let dir = TemporaryDirectory("hard-stop")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeSparseFile(dir.at("big.img"), size: 4 << 30)
        let receiver = bob.start(["receive", "--port", "0", "--dir", dir.at("inbox"), "--accept", "everyone", "--json"])
        let port = try #require(receiver.listeningPort())
        // (--no-retry: otherwise the sender would wait for the receiver to come back.)
        let sender = alice.start(["send", dir.at("big.img"), "--to", "127.0.0.1:\(port)", "--no-retry"])
        // Once data flows (a staged file grows), the receiver's user stops it.
        let staging = bob.inbox + "/.share-staging"
        let started = ContinuousClock.now
        while ContinuousClock.now - started < .seconds(30) {
            if FileTree.allPaths(staging).contains(where: { $0.hasSuffix("big.img") }) { break }
            usleep(20_000)
        }
        receiver.signal(SIGTERM)
        #expect(receiver.wait(timeout: .seconds(20)).status == 128 + SIGTERM)
        let sent = sender.wait(timeout: .seconds(30))
        #expect(sent.status == 1)
        #expect(sent.stderr.contains("the receiver was stopped by its user"), "\(sent.stderr)")
        #expect(FileTree.allPaths(dir.at("inbox")).isEmpty)
    }

    // MARK: 7. Enough descriptors for many transfers

    /// Debian's soft limit of 1,024 descriptors would leave a receiver with a few busy-disk commits
    /// at once unable to open anything more: it raises its own to the hard limit, and the importers
    /// it starts get back the limit it was started with.
    @Test func aReceiverRaisesItsDescriptorLimitAndItsImportersGetTheOneItStartedWith() throws {
        let dir = TemporaryDirectory("hard-nofile")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        let manifest = scriptImporter(
            "Limits", ext: "limits", script: "#!/bin/sh\nulimit -Sn > limit.txt\n",
            keys: "<key>Folder</key><string>~/Limits</string>", in: dir)
        #expect(bob.run(["types", "register", manifest]).status == 0)
        FileTree.writeText(dir.at("a.limits"), "a")

        let receiver = bob.start(
            ["receive", "--port", "0", "--dir", dir.at("downloads"), "--accept", "all", "--once", "--json"],
            launcher: ["/usr/bin/prlimit", "--nofile=256:8192"])
        let port = try #require(receiver.listeningPort())
        let limits = try String(contentsOfFile: "/proc/\(receiver.process.processIdentifier)/limits", encoding: .utf8)
        let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        #expect(line.split(separator: " ").dropFirst(3).prefix(2).map(String.init) == ["8192", "8192"], "\(line)")

        let sent = alice.run(["send", dir.at("a.limits"), "--to", "127.0.0.1:\(port)"])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(receiver.wait(timeout: .seconds(30)).status == 0)
        #expect(try String(contentsOfFile: bob.home + "/Limits/limit.txt", encoding: .utf8) == "256\n")
    }
}
