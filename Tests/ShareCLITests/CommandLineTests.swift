import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The command line as scripts and real folders use it, through the real binary: JSON
/// for every outcome, folders as source trees are, and the rough edges.
@Suite(.serialized) struct CommandLineTests {
    /// A receiver that accepts everything once, in `folder`, and its port.
    private func receiver(_ machine: TestMachine, in folder: String, _ extra: [String] = []) throws -> (RunningShare, UInt16) {
        let running = machine.start(["receive", "--port", "0", "--dir", folder, "--accept", "all", "--once", "--json"] + extra)
        return (running, try #require(running.listeningPort()))
    }

    @Test func aSourceTreeArrivesWithCaseOnlyNamesLeavingOutSpecialFilesAndExcludes() throws {
        let dir = TemporaryDirectory("cli-tree")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        for folder in ["proj/sub", "proj/node_modules/x"] { FileTree.makeFolder(dir.at(folder)) }
        FileTree.writeText(dir.at("proj/Case.txt"), "upper\n")
        FileTree.writeText(dir.at("proj/case.txt"), "lower\n")
        FileTree.writeText(dir.at("proj/sub/main.o"), "object\n")
        FileTree.writeText(dir.at("proj/node_modules/x/index.js"), "js\n")
        #expect(mkfifo(dir.at("proj/pipe"), 0o644) == 0)
        #expect(symlink("Case.txt", dir.at("proj/alias")) == 0)
        let (running, port) = try receiver(bob, in: dir.at("inbox"))
        let sent = alice.run(
            ["send", dir.at("proj"), "--to", "127.0.0.1:\(port)", "--exclude", "*.o", "--exclude", "node_modules/", "--json"])
        _ = running.wait(timeout: .seconds(30))

        #expect(sent.status == 0, "\(sent.stderr)")
        let report = try #require(jsonObject(sent.stdout))
        #expect(report["outcome"] as? String == "sent")
        let skipped = try #require(report["skipped"] as? [[String: Any]])
        #expect(skipped.map { $0["kind"] as? String } == ["fifo"])
        #expect((skipped.first?["path"] as? String)?.hasSuffix("proj/pipe") == true)
        #expect(sent.stderr.contains("proj/pipe"), "the skipped pipe is warned about: \(sent.stderr)")
        // ext4 tells the two names apart, so both arrive; the link stays a link.
        #expect(FileTree.allPaths(dir.at("inbox")) == ["proj", "proj/Case.txt", "proj/alias", "proj/case.txt", "proj/sub"])
        #expect(try String(contentsOfFile: dir.at("inbox/proj/case.txt"), encoding: .utf8) == "lower\n")
        #expect(try String(contentsOfFile: dir.at("inbox/proj/Case.txt"), encoding: .utf8) == "upper\n")
    }

    @Test func linksLeavingTheFolderNeedFollowLinks() throws {
        let dir = TemporaryDirectory("cli-links")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("outside.txt"), "outside\n")
        FileTree.makeFolder(dir.at("proj"))
        FileTree.writeText(dir.at("proj/a.txt"), "a\n")
        #expect(symlink("../outside.txt", dir.at("proj/link")) == 0)
        let refused = alice.run(["send", dir.at("proj"), "--to", "127.0.0.1:9"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("points to '../outside.txt', outside the folder being sent; send what it points to with -L"))

        let (running, port) = try receiver(bob, in: dir.at("inbox"))
        let sent = alice.run(["send", dir.at("proj"), "-L", "--to", "127.0.0.1:\(port)"])
        _ = running.wait(timeout: .seconds(30))
        #expect(sent.status == 0, "\(sent.stderr)")
        var info = stat()
        #expect(lstat(dir.at("inbox/proj/link"), &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG, "a file in its place")
        #expect(try String(contentsOfFile: dir.at("inbox/proj/link"), encoding: .utf8) == "outside\n")
    }

    @Test func aNameTheReceiverWouldRefuseIsNamedPlainly() throws {
        let dir = TemporaryDirectory("cli-names")
        let alice = TestMachine("alice", in: dir)
        FileTree.makeFolder(dir.at("proj"))
        FileTree.writeText(dir.at("proj/ok.txt"), "ok\n")
        FileTree.writeText(dir.at("proj/back\\slash.txt"), "x\n")
        FileTree.writeText(dir.at("proj/tab\there.txt"), "x\n")
        let result = alice.run(["send", dir.at("proj"), "--to", "127.0.0.1:9"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("'\(dir.at("proj/back\\slash.txt"))': its name contains a backslash (\\)"))
        #expect(result.stderr.contains("tab"))
        #expect(result.stderr.contains("--exclude"))
        #expect(!result.stderr.contains("U+5C"), "\(result.stderr)")
    }

    @Test func namesThatAreNotNamesAreNamedWithWhatWillHappen() throws {
        let dir = TemporaryDirectory("cli-unnamed")
        let alice = TestMachine("alice", in: dir)
        FileTree.makeFolder(dir.at("proj"))
        FileTree.writeText(dir.at("proj/ok.txt"), "ok\n")
        FileTree.writeText(dir.at("proj/~"), "x\n")
        FileTree.writeText(dir.at("proj/..."), "x\n")
        FileTree.writeText(dir.at("proj/ "), "x\n")
        FileTree.writeText(dir.at("proj/~$Report.docx"), "a lock file: a name\n")
        let result = alice.run(["send", dir.at("proj"), "--to", "127.0.0.1:9"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot send 3 names that the receiver would refuse"), "\(result.stderr)")
        #expect(result.stderr.contains("'\(dir.at("proj/~"))': its name begins with '~', which a shell reads as a home folder"))
        #expect(result.stderr.contains("'\(dir.at("proj/..."))': its name is only dots"))
        #expect(result.stderr.contains("'\(dir.at("proj/\\u{20}"))': its name is only white space or invisible characters"))
        #expect(!result.stderr.contains("Report.docx"), "a ~ that no shell expands is a name")
        #expect(result.stderr.contains("Rename them, or leave them out with --exclude"))

        // A lone item under such a name is refused the same way.
        let alone = alice.run(["send", dir.at("proj/~"), "--to", "127.0.0.1:9"])
        #expect(alone.status == 1)
        #expect(alone.stderr.contains("its name begins with '~', which a shell reads as a home folder"), "\(alone.stderr)")

        // Standard input under such a name is a usage error before anything is read; a text's
        // name is judged with its .txt added.
        let piped = alice.run(["send", "-", "--name", "...", "--to", "127.0.0.1:9"], stdin: "data")
        #expect(piped.status == 64)
        #expect(piped.stderr.contains("The name '...' would be refused by the receiver: a name in the path is only dots; choose another"), "\(piped.stderr)")
        let text = alice.run(["send", "--text", "hi", "--name", "~", "--to", "127.0.0.1:9"])
        #expect(!text.stderr.contains("would be refused"), "'~.txt' is a name: \(text.stderr)")
    }

    @Test func everyOutcomeIsJSONWithTheTargetAsGiven() throws {
        let dir = TemporaryDirectory("cli-json")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("a.txt"), "a\n")

        let usage = alice.run(["send", dir.at("a.txt"), "--json"])
        #expect(usage.status == 64)
        let usageError = try #require(jsonObject(usage.stdout))
        #expect(usageError["ok"] as? Bool == false)
        #expect(usageError["outcome"] as? String == "usage")
        #expect(usageError["error"] as? String == "Missing expected option '--to <peer>' (there is no terminal to choose receivers on)")

        // A good target and one no avahi-daemon can find (a nonexistent bus): one line each, in order.
        let (running, port) = try receiver(bob, in: dir.at("inbox"))
        let noBus = ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=" + dir.at("no-bus")]
        let mixed = ShareBinary.run(
            ["send", dir.at("a.txt"), "--to", "127.0.0.1:\(port)", "--to", "ghost", "--json"],
            environment: alice.environment.merging(noBus) { $1 })
        _ = running.wait(timeout: .seconds(30))
        #expect(mixed.status == 1)
        let lines = jsonLines(mixed.stdout)
        #expect(lines.map { $0["to"] as? String } == ["127.0.0.1:\(port)", "ghost"])
        #expect(lines.map { $0["outcome"] as? String } == ["sent", "unavailable"])
        #expect((lines.first?["peer"] as? [String: Any])?["name"] as? String == "bob")
        let fingerprint = try #require((lines.first?["peer"] as? [String: Any])?["fingerprint"] as? String)
        #expect(fingerprint.count == 64)
        #expect((lines.first?["peer"] as? [String: Any])?["fingerprintPrefix"] as? String == String(fingerprint.prefix(16)))

        let alone = ShareBinary.run(
            ["send", dir.at("a.txt"), "--to", "ghost", "--json"], environment: alice.environment.merging(noBus) { $1 })
        #expect(alone.status == 69)
        #expect(jsonObject(alone.stdout)?["outcome"] as? String == "unavailable")
    }

    @Test func anIPAddressAloneUsesTheDefaultPortAndARefusalIsSaidOnce() throws {
        let dir = TemporaryDirectory("cli-port")
        let alice = TestMachine("alice", in: dir)
        FileTree.writeText(dir.at("a.txt"), "a\n")
        let result = alice.run(["send", dir.at("a.txt"), "--to", "127.0.0.1", "--json"])
        let line = try #require(jsonObject(result.stdout))
        #expect(line["to"] as? String == "127.0.0.1")
        #expect((line["peer"] as? [String: Any])?["address"] as? String == "127.0.0.1:47321")

        let refused = alice.run(["send", dir.at("a.txt"), "--to", "127.0.0.1:9"])
        #expect(refused.stderr.components(separatedBy: "nobody is receiving").count == 2, "said once: \(refused.stderr)")
    }

    @Test func theSmallRoughEdges() throws {
        let dir = TemporaryDirectory("cli-edges")
        let alice = TestMachine("alice", in: dir)
        let help = alice.run(["help", "help"])
        #expect(help.status == 0)
        #expect(help.stdout.hasPrefix("OVERVIEW: Show the help of a command."))
        let wait = alice.run(["peers", "--wait", "-1"])
        #expect(wait.status == 64)
        #expect(wait.stderr.hasPrefix("Error: The value '-1' is invalid for '--wait'"))
        let named = alice.run(["identity", "set-name", "  desk  "])
        #expect(named.stdout == "Device name set to \"desk\" (without the spaces around it).\n")
        #expect(jsonObject(alice.run(["identity", "--json"]).stdout)?["name"] as? String == "desk")
        let rate = alice.run(["send", "a.txt", "--to", "127.0.0.1:9", "--limit-rate", "fast"])
        #expect(rate.status == 64)
        #expect(rate.stderr.hasPrefix("Error: The value 'fast' is invalid for '--limit-rate'"))
    }

    @Test func aClosedStdoutEndsTheReceiver() throws {
        let dir = TemporaryDirectory("cli-head")
        let bob = TestMachine("bob", in: dir)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        let command = "'\(ShareBinary.path)' receive --port 0 --dir '\(dir.at("inbox"))' --json | head -1; echo \"status ${PIPESTATUS[0]}\""
        process.arguments = ["-c", command]
        process.environment = bob.environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let deadline = ContinuousClock.now + .seconds(30)
        while process.isRunning && ContinuousClock.now < deadline { usleep(50_000) }
        if process.isRunning { process.terminate() }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let lines = text.split(separator: "\n")
        #expect(lines.count == 2, "\(text)")
        #expect(jsonObject(lines.first ?? "")?["event"] as? String == "listening")
        #expect(lines.last == "status 0", "the receiver ended by itself, cleanly")
    }

    @Test(arguments: ["send", "receive"]) func limitRateKeepsTheTransferSlow(_ side: String) throws {
        let dir = TemporaryDirectory("cli-rate")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeFile(dir.at("data.bin"), size: 600_000)
        let limit = ["--limit-rate", "200k"]
        let (running, port) = try receiver(bob, in: dir.at("inbox"), side == "receive" ? limit : [])
        let start = ContinuousClock.now
        let sent = alice.run(["send", dir.at("data.bin"), "--to", "127.0.0.1:\(port)", "--json"] + (side == "send" ? limit : []))
        let elapsed = ContinuousClock.now - start
        _ = running.wait(timeout: .seconds(30))
        #expect(sent.status == 0, "\(sent.stderr)")
        // 600 kB at 200 kB/s, less the first quarter second's allowance: at least two seconds.
        #expect(elapsed >= .seconds(2), "\(elapsed)")
        #expect(FileTree.allPaths(dir.at("inbox")) == ["data.bin"])
    }

    @Test func aReceiveFolderThatCannotBeUsedIsSaidAtTheStart() throws {
        let dir = TemporaryDirectory("cli-dir")
        let bob = TestMachine("bob", in: dir)
        let missing = bob.run(["receive", "--port", "0", "--dir", dir.at("nope/a/b")])
        #expect(missing.status == 1)
        #expect(
            missing.stderr
                == "Error: the receive folder '\(dir.at("nope/a/b"))' does not exist, nor does the folder it would be in "
                + "('\(dir.at("nope/a"))'); share creates only the last one: create them with 'mkdir -p', or choose another with --dir\n")
        #expect(!FileManager.default.fileExists(atPath: dir.at("nope")), "nothing was created")

        // Only the last folder is created.
        let receiving = bob.start(["receive", "--port", "0", "--dir", dir.at("new"), "--json"])
        #expect(receiving.listeningPort() != nil)
        receiving.signal(SIGTERM)
        _ = receiving.wait(timeout: .seconds(30))
        #expect(FileManager.default.fileExists(atPath: dir.at("new")))

        // A folder this user cannot write in: root writes anywhere but in an immutable folder.
        FileTree.makeFolder(dir.at("locked"), mode: 0o555)
        let immutable = geteuid() == 0
        if immutable { #expect(system("chattr +i '\(dir.at("locked"))'") == 0) }
        defer { if immutable { _ = system("chattr -i '\(dir.at("locked"))'") } }
        let locked = bob.run(["receive", "--port", "0", "--dir", dir.at("locked")])
        #expect(locked.status == 1)
        #expect(locked.stderr.hasPrefix("Error: cannot write in the receive folder '\(dir.at("locked"))' ("))
    }

    @Test func theFreeSpaceMarginIsStatedAndScalesWithTheDisk() throws {
        let dir = TemporaryDirectory("cli-space")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        let small = dir.at("small")
        FileTree.makeFolder(small)
        guard system("mount -t tmpfs -o size=8m tmpfs '\(small)' 2>/dev/null") == 0 else {
            #expect(!SimulatedLAN.isRequired, "mounting a small tmpfs needs root")
            return
        }
        defer { _ = system("umount '\(small)'") }
        // 8 MiB: the margin is 1 MiB (2%, at least 1 MiB), not 64 MiB, so 6 MB fit and 7.5 MB do not.
        FileTree.writeFile(dir.at("fits.bin"), size: 6_000_000)
        FileTree.writeFile(dir.at("big.bin"), size: 7_500_000)
        var (running, port) = try receiver(bob, in: small + "/in")
        let fits = alice.run(["send", dir.at("fits.bin"), "--to", "127.0.0.1:\(port)"])
        _ = running.wait(timeout: .seconds(30))
        #expect(fits.status == 0, "\(fits.stderr)")
        #expect(unlink(small + "/in/fits.bin") == 0)

        (running, port) = try receiver(bob, in: small + "/in")
        let big = alice.run(["send", dir.at("big.bin"), "--to", "127.0.0.1:\(port)"])
        running.signal(SIGTERM)
        _ = running.wait(timeout: .seconds(30))
        #expect(big.status == 1)
        #expect(
            big.stderr.contains(
                "the offer needs 7.5 MB and only 8.4 MB is free, of which 1.0 MB is kept free so the disk never fills up "
                    + "(2% of the disk, from 1.0 MB to 67 MB)"), "\(big.stderr)")
    }

    @Test func progressFitsANarrowTerminalAndShowsTheCurrentRate() throws {
        let dir = TemporaryDirectory("cli-progress")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeFile(dir.at("data.bin"), size: 1_500_000)
        let (running, port) = try receiver(bob, in: dir.at("inbox"))
        let command = "stty cols 40; "
            + [ShareBinary.path, "send", dir.at("data.bin"), "--to", "127.0.0.1:\(port)", "--limit-rate", "300k"]
            .map { "'\($0)'" }.joined(separator: " ")
        let terminal = PseudoTerminalProcess(command: command, environment: alice.environment)
        #expect(terminal.wait(timeout: .seconds(60)) == 0)
        _ = running.wait(timeout: .seconds(30))
        let drawn = terminal.output.components(separatedBy: "\r\u{1B}[K").map { $0.split(separator: "\r\n").first.map(String.init) ?? "" }
            .filter { $0.contains("%") }
        #expect(!drawn.isEmpty, "\(terminal.output)")
        #expect(drawn.allSatisfy { $0.count < 40 }, "every redraw fits in 40 columns: \(drawn)")
        // The rate is the current one: with 300 kB/s it reads in kB/s (the average over the first
        // instant's burst would not).
        #expect(drawn.contains { $0.contains("kB/s") }, "\(drawn)")
    }

    @Test func progressSaysStalledWhenNothingMoves() throws {
        let dir = TemporaryDirectory("cli-stalled")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeSparseFile(dir.at("big.img"), size: 200_000_000)
        let (running, port) = try receiver(bob, in: dir.at("inbox"))
        let command = [ShareBinary.path, "send", dir.at("big.img"), "--to", "127.0.0.1:\(port)", "--limit-rate", "20M", "--no-compress"]
            .map { "'\($0)'" }.joined(separator: " ")
        let terminal = PseudoTerminalProcess(command: command, environment: alice.environment)
        #expect(terminal.waitForOutput(containing: "MB/s"))
        // The receiver stops reading: once the socket buffers are full nothing moves on the sender
        // (raw: compressed, the sparse file's zeros would all fit in them).
        kill(running.process.processIdentifier, SIGSTOP)
        #expect(terminal.waitForOutput(containing: "stalled", timeout: .seconds(20)), "\(terminal.output.suffix(400))")
        kill(running.process.processIdentifier, SIGCONT)
        #expect(terminal.wait(timeout: .seconds(60)) == 0)
        _ = running.wait(timeout: .seconds(30))
    }
}
