import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `share send - --name NAME`: standard input, spooled to a private temporary file and sent as one file.
@Suite(.serialized) struct StandardInputTests {
    @Test func standardInputArrivesAsOneFileAndTheSpoolIsGone() throws {
        let dir = TemporaryDirectory("stdin-send")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.makeFolder(dir.at("tmp"))
        FileTree.writeText(dir.at("also.txt"), "beside\n")
        let receiver = bob.start([
            "receive", "--port", "0", "--dir", dir.at("in"), "--accept", "all", "--once", "--json",
        ])
        let port = try #require(receiver.listeningPort())
        // Less than a pipe holds: the test writes it all before the sender starts reading.
        let text = String(repeating: "a line of standard input\n", count: 2_000)
        let sent = ShareBinary.run(
            ["send", "-", dir.at("also.txt"), "--name", "notes.txt", "--to", "127.0.0.1:\(port)", "--json"],
            environment: alice.environment.merging(["TMPDIR": dir.at("tmp")]) { $1 }, stdin: text)
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(receiver.wait(timeout: .seconds(30)).status == 0)
        let report = try #require(jsonObject(sent.stdout))
        #expect((report["items"] as? [[String: Any]])?.map { $0["name"] as? String } == ["notes.txt", "also.txt"])
        #expect(FileTree.readText(dir.at("in/notes.txt")) == text)
        var info = stat()
        #expect(stat(dir.at("in/notes.txt"), &info) == 0 && info.st_mode & 0o777 == 0o644 & ~currentUmask())
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.at("tmp")).isEmpty, "the spool is deleted")
    }

    @Test func anInterruptDeletesTheSpool() async throws {
        let dir = TemporaryDirectory("stdin-interrupt")
        let alice = TestMachine("alice", in: dir)
        FileTree.makeFolder(dir.at("tmp"))
        let sender = try Subprocess(
            executable: ShareBinary.path, arguments: ["send", "-", "--name", "endless.log", "--to", "127.0.0.1:9"],
            environment: alice.environment.merging(["TMPDIR": dir.at("tmp")]) { $1 }, stdinPipe: true)
        sender.write("still writing\n")
        #expect(await waitUntil { (try? FileManager.default.contentsOfDirectory(atPath: dir.at("tmp")).count) == 1 })
        sender.signal(SIGINT)
        #expect(await waitUntil { sender.reap(block: false) != nil })
        #expect(sender.reap(block: false) == 130)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.at("tmp")).isEmpty)
    }

    @Test(arguments: [
        (
            ["send", "-", "--to", "h:1"],
            "Sending standard input ('-') needs --name <name>: the name it gets on the receiver"
        ),
        (["send", "a.txt", "--name", "x", "--to", "h:1"], "--name names standard input or --text; give '-' among the paths, or --text"),
        (["send", "-", "-", "--name", "x", "--to", "h:1"], "Standard input ('-') can be sent only once"),
        (["send", "-", "--name", "a/b", "--to", "h:1"], "The name 'a/b' is not a file name (no '/', not '.' or '..')"),
        (
            ["send", "-", "--name", "x"],
            "Missing expected option '--to <peer>' (standard input is what is sent, so receivers cannot be chosen on the terminal)"
        ),
        (["send", "a.txt"], "Missing expected option '--to <peer>' (there is no terminal to choose receivers on)"),
    ])
    func misusesAreUsageErrors(_ arguments: [String], _ message: String) {
        let dir = TemporaryDirectory("stdin-usage")
        let alice = TestMachine("alice", in: dir)
        let result = alice.run(arguments, stdin: "x")
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix(
                "Error: \(message)\nUsage: share send [<path> ...] [--text <text>] [--to <peer> ...] [--name <name>] [--retry-for <duration> | --no-retry] [--exclude <pattern> ...] [-L] [--limit-rate <rate>] [--no-compress] [--pin <pin> | --pin-file <file>] [--link [--link-port <port>] [--link-timeout <duration>]] [--json]\n"))
    }

    @Test(.enabled(if: SimulatedLAN.isRequired || getuid() == 0))
    func spoolingStopsBeforeTheDiskIsFull() throws {
        let dir = TemporaryDirectory("stdin-full")
        let alice = TestMachine("alice", in: dir)
        FileTree.makeFolder(dir.at("small"))
        // A 128 MiB file system of its own, in a private mount namespace; 200 MiB of input.
        let script = """
            mount -t tmpfs -o size=128m tmpfs "$1" || exit 99
            head -c 200M /dev/zero | TMPDIR="$1" "$2" send - --name zeros.bin --to 127.0.0.1:9
            status=$?
            ls -A "$1"
            exit $status
            """
        let child = try Subprocess(
            executable: "/usr/bin/unshare",
            arguments: [
                "--mount", "--propagation", "private", "/bin/sh", "-c", script, "sh", dir.at("small"), ShareBinary.path,
            ],
            environment: alice.environment, stdinPipe: false)
        let output = String(decoding: child.readToEnd(), as: UTF8.self)
        #expect(child.reap(block: true) == 1, "\(output)")
        #expect(
            output.contains(
                "Error: cannot read '-': standard input is larger than the free space in \(dir.at("small")) allows ("),
            "\(output)")
        #expect(output.hasSuffix("left); set TMPDIR to a larger disk\n"), "nothing is left behind: \(output)")
    }

    func currentUmask() -> mode_t {
        let mask = umask(0)
        umask(mask)
        return mask
    }
}
