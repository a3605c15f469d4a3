import Foundation
import ShareArchive
import ShareKit
import ShareTLS
import ShareTestSupport
import ShareWire
import Testing
import TypeRegistry

#if canImport(Glibc)
    import Glibc
#endif

/// Received documents handed to applications: the inbox, the importers, the receipt.
@Suite(.serialized) struct ImportTests {
    @Test func copiesMovesAndUnpacksIntoApplicationFolders() async throws {
        let dir = TemporaryDirectory("import-kinds")
        let notes = try TestApps.register(
            TestApps.manifest(
                id: "com.example.notes", name: "Notes", typeID: "com.example.note", ext: "note",
                conformsTo: "public.plain-text", importer: TestApps.folder("copy", dir.at("notes"))),
            as: "notes", in: dir)
        let boards = try TestApps.register(
            TestApps.manifest(
                id: "com.example.boards", name: "Boards", typeID: "com.example.board", ext: "board",
                conformsTo: "com.apple.package", isPackage: true, importer: TestApps.folder("move", dir.at("boards"))),
            as: "boards", in: dir)
        let bugs = try TestApps.register(
            TestApps.manifest(
                id: "com.example.bugs", name: "Bugs", typeID: "com.example.bug", ext: "sbz",
                conformsTo: "org.gnu.gnu-zip-archive", importer: TestApps.folder("unpack", dir.at("bugs"))),
            as: "bugs", in: dir)
        let harness = try ReceiverHarness(in: dir, registry: TestApps.registry([notes, boards, bugs]))
        FileTree.writeText(dir.at("a.note"), "remember the milk\n")
        FileTree.makeFolder(dir.at("Plan.board/Cards"))
        FileTree.writeText(dir.at("Plan.board/Cards/one.txt"), "first card")
        chmod(dir.at("Plan.board"), 0o750)
        FileTree.setModificationTime(dir.at("Plan.board"), seconds: 1_400_000_000)
        FileTree.makeFolder(dir.at("Bug"))
        FileTree.writeText(dir.at("Bug/data.plist"), "<plist/>")
        let writer = try ArchiveWriter(path: dir.at("Bug.sbz"), format: .tarGzip)
        try writer.addFolder("Bug")
        try writer.addContents(of: dir.at("Bug"), prefix: "Bug")
        try writer.close()
        let sender = try TestSender(in: dir)

        let report = try await sender.send([dir.at("a.note"), dir.at("Plan.board"), dir.at("Bug.sbz")], to: harness)
        let again = try await sender.send([dir.at("Bug.sbz")], to: harness)

        #expect(report.items.map(\.text) == ["Notes", "Boards", "Bugs"])
        #expect(report.items.map(\.outcome) == [.imported, .imported, .imported])
        #expect(again.items.map(\.text) == ["Bugs"])
        guard case .received(let transfer) = await harness.nextOutcome() else {
            Issue.record("no received outcome")
            return
        }
        _ = await harness.nextOutcome()  // The second transfer's: its receiver is done with it too.
        #expect(transfer.items.map(\.result.type) == ["com.example.note", "com.example.board", "com.example.bug"])
        #expect(
            transfer.items.map(\.path) == [dir.at("notes/a.note"), dir.at("boards/Plan.board"), dir.at("bugs/Bug")])
        #expect(transfer.items.map { $0.result.application?.importerKind } == ["copy", "move", "unpack"])
        #expect(FileManager.default.contents(atPath: dir.at("notes/a.note")) == Data("remember the milk\n".utf8))
        #expect(
            FileTree.describe(dir.at("boards/Plan.board"), includeRootTime: true)
                == FileTree.describe(dir.at("Plan.board"), includeRootTime: true, asReceived: true))
        // Importing the same archive twice gives two documents; nothing is overwritten.
        #expect(FileTree.allPaths(dir.at("bugs")) == ["Bug", "Bug (2)", "Bug (2)/data.plist", "Bug/data.plist"])
        #expect(inboxEntries(harness.inbox).isEmpty)
        #expect(FileTree.allPaths(harness.inbox).isEmpty, "no staging folder left")
        #expect(FileTree.allPaths(harness.destination).isEmpty, "nothing went to the receive folder")
    }

    @Test func aFailingImporterKeepsTheDocumentInTheInboxUntilARetrySucceeds() async throws {
        let dir = TemporaryDirectory("import-fail")
        FileTree.makeFolder(dir.at("store"))
        let app = try TestApps.scripted(
            "Failer", ext: "fail", in: dir,
            body: """
                [ -e "\(dir.at("fixed"))" ] || { echo "working..."; echo "the store is locked" >&2; exit 3; }
                cp "$1" "\(dir.at("store"))/"
                """, folder: dir.at("store"))
        let registry = TestApps.registry([app])
        let harness = try ReceiverHarness(in: dir, registry: registry)
        FileTree.writeText(dir.at("doc.fail"), "payload")

        let report = try await TestSender(in: dir).send([dir.at("doc.fail")], to: harness)

        #expect(report.items.map(\.text) == ["Failer could not import it"])
        guard case .received(let transfer) = await harness.nextOutcome(), let item = transfer.items.first else {
            Issue.record("no received outcome")
            return
        }
        guard case .kept(let failure, let timedOut) = item.result.outcome else {
            Issue.record("the document should have been kept, not \(item.result.outcome)")
            return
        }
        #expect(failure == "Failer: its importer failed (exit status 3): the store is locked")
        #expect(!timedOut)
        let id = item.result.entry.id
        #expect(inboxEntries(harness.inbox) == [id])
        #expect(item.path == harness.inbox + "/\(id)/doc.fail")
        let inbox = Inbox(directory: harness.inbox)
        let entry = try inbox.entry(id)
        #expect(entry.state == .failed)
        #expect(entry.attempts == 1)
        #expect(entry.failure == failure)
        #expect(entry.senderName == "laptop")
        #expect(entry.senderFingerprint == (try TestSender(in: dir)).identity.fingerprint.hex)
        #expect(entry.resolvedType == "com.example.fail")
        #expect(FileManager.default.contents(atPath: inbox.documentPath(of: entry)) == Data("payload".utf8))

        // A retry that fails again counts the attempt; once the cause is fixed, it succeeds.
        let importer = DocumentImporter(
            inbox: inbox, registry: registry, receiveFolder: harness.destination,
            environment: ProcessInfo.processInfo.environment)
        let second = try importer.importEntry(String(id.prefix(4)))
        #expect(!second.succeeded)
        #expect(try inbox.entry(id).attempts == 2)
        FileTree.writeText(dir.at("fixed"), "")
        let third = try importer.importEntry(id)
        #expect(third.succeeded)
        #expect(third.outcome == .imported(path: nil))
        #expect(FileManager.default.contents(atPath: dir.at("store/doc.fail")) == Data("payload".utf8))
        #expect(inboxEntries(harness.inbox).isEmpty)
        #expect(throws: InboxError.noSuchEntry(id)) { try importer.importEntry(id) }
    }

    @Test func aHangingImporterIsStoppedAtItsTimeoutWhileTheReceiverKeepsWorking() async throws {
        let dir = TemporaryDirectory("import-hang")
        let script = dir.at("apps/hang.sh")
        FileTree.makeFolder(dir.at("apps"))
        // Ignoring SIGTERM: only the SIGKILL that follows can stop it.
        TestApps.script(script, "trap '' TERM\necho $$ > \"\(dir.at("work/pid"))\"\nwhile :; do sleep 1; done")
        let app = try TestApps.register(
            TestApps.manifest(
                id: "com.example.hanger", name: "Hanger", typeID: "com.example.hang", ext: "hang",
                importer: TestApps.command([script, "%f"], timeout: 1, folder: dir.at("work"))),
            as: "hanger", in: dir)
        let harness = try ReceiverHarness(in: dir, registry: TestApps.registry([app]), receiptWait: .milliseconds(300))
        FileTree.writeText(dir.at("doc.hang"), "payload")
        FileTree.writeText(dir.at("other.txt"), "meanwhile")
        let sender = try TestSender(in: dir)

        let started = ContinuousClock.now
        let report = try await sender.send([dir.at("doc.hang")], to: harness)
        #expect(ContinuousClock.now - started < .seconds(3), "the receipt does not wait for the importer")
        #expect(report.items.map(\.text) == ["still being imported by Hanger"])
        // Another transfer goes through while the importer hangs.
        let other = try await sender.send([dir.at("other.txt")], to: harness)
        #expect(other.items.map(\.text) == [harness.destination + "/other.txt"])

        var results: [ReceivedTransfer] = []
        for _ in 0..<2 {
            if case .received(let transfer) = await harness.nextOutcome(timeout: .seconds(20)) {
                results.append(transfer)
            }
        }
        let hung = try #require(results.first { $0.items.first?.name == "doc.hang" }?.items.first)
        #expect(
            hung.result.outcome
                == .kept(failure: "Hanger: its importer did not finish within 1 s and was stopped", timedOut: true))
        #expect(inboxEntries(harness.inbox) == [hung.result.entry.id])
        let pid = try #require(
            Int32(
                (try? String(contentsOfFile: dir.at("work/pid"), encoding: .utf8))?.trimmingCharacters(
                    in: .whitespacesAndNewlines) ?? ""))
        #expect(kill(pid, 0) != 0, "the importer's process group was killed")
        #expect(ContinuousClock.now - started < .seconds(15))
    }

    @Test func aStoppingReceiverStopsItsImportersAndKeepsTheirDocuments() async throws {
        let dir = TemporaryDirectory("import-stop")
        let script = dir.at("apps/slow.sh")
        FileTree.makeFolder(dir.at("apps"))
        TestApps.script(script, "echo $$ > \"\(dir.at("work/pid"))\"\nexec sleep 600")
        let app = try TestApps.register(
            TestApps.manifest(
                id: "com.example.slow", name: "Slow", typeID: "com.example.slow", ext: "slow",
                importer: TestApps.command([script, "%f"], timeout: 600, folder: dir.at("work"))),
            as: "slow", in: dir)
        let harness = try ReceiverHarness(in: dir, registry: TestApps.registry([app]))
        FileTree.writeText(dir.at("doc.slow"), "payload")
        let sender = try TestSender(in: dir)
        let path = dir.at("doc.slow")
        Thread { _ = try? sender.send([path], to: harness) }.start()
        #expect(await waitUntil { FileManager.default.fileExists(atPath: dir.at("work/pid")) }, "the importer started")

        let started = ContinuousClock.now
        harness.stop()

        #expect(ContinuousClock.now - started < .seconds(6), "the receiver does not wait for the importer's timeout")
        guard case .received(let transfer) = await harness.nextOutcome(timeout: .seconds(5)),
            let item = transfer.items.first
        else {
            Issue.record("no received outcome")
            return
        }
        #expect(
            item.result.outcome
                == .kept(failure: "Slow: its importer was stopped because the receiver stopped", timedOut: false))
        #expect(inboxEntries(harness.inbox) == [item.result.entry.id])
        #expect(try Inbox(directory: harness.inbox).entry(item.result.entry.id).state == .failed)
    }

    @Test func importersRunWithoutAShellWithAMinimalEnvironmentAndNoInput() async throws {
        let dir = TemporaryDirectory("import-env")
        let script = dir.at("apps/record.sh")
        FileTree.makeFolder(dir.at("apps"))
        TestApps.script(
            script,
            """
            env > env.txt
            printf '%s\\n' "$@" > args.txt
            cat > stdin.txt
            pwd > pwd.txt
            """)
        let app = try TestApps.register(
            TestApps.manifest(
                id: "com.example.recorder", name: "Recorder", typeID: "com.example.rec", ext: "rec",
                importer: TestApps.command([script, "--type=%t", "%f", "100%%", "$(reboot)"], folder: dir.at("store"))),
            as: "recorder", in: dir)
        var environment = ProcessInfo.processInfo.environment
        environment["SECRET_TOKEN"] = "hunter2"
        environment["HOME"] = dir.at("home")
        environment["XDG_DATA_HOME"] = dir.at("home/.data")
        let harness = try ReceiverHarness(in: dir, registry: TestApps.registry([app]), environment: environment)
        FileTree.makeFolder(dir.at("home"))
        FileTree.writeText(dir.at("my doc.rec"), "x")

        let report = try await TestSender(in: dir).send([dir.at("my doc.rec")], to: harness)

        #expect(report.items.map(\.text) == ["Recorder"])
        let variables = Set(
            (try String(contentsOfFile: dir.at("store/env.txt"), encoding: .utf8)).split(separator: "\n").compactMap {
                $0.split(separator: "=", maxSplits: 1).first.map(String.init)
            })
        #expect(!variables.contains("SECRET_TOKEN"))
        // The shell itself adds PWD, SHLVL and _.
        let allowed: Set<String> = [
            "PATH", "HOME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "USER", "LOGNAME", "TMPDIR", "PWD", "SHLVL",
            "_",
        ]
        #expect(variables.filter { !$0.hasPrefix("XDG_") }.isSubset(of: allowed))
        #expect(variables.contains("XDG_DATA_HOME") && variables.contains("HOME") && variables.contains("PATH"))
        let arguments = try String(contentsOfFile: dir.at("store/args.txt"), encoding: .utf8).split(
            separator: "\n"
        ).map(String.init)
        #expect(arguments.count == 4)
        #expect(arguments.first == "--type=com.example.rec")
        #expect(arguments.dropFirst().first?.hasPrefix(harness.inbox + "/") == true)
        #expect(arguments.dropFirst().first?.hasSuffix("/my doc.rec") == true, "one argument, spaces and all")
        #expect(arguments.dropFirst(2).first == "100%")
        #expect(arguments.last == "$(reboot)", "passed as text, never run by a shell")
        #expect(try String(contentsOfFile: dir.at("store/stdin.txt"), encoding: .utf8) == "", "stdin is /dev/null")
        #expect(try String(contentsOfFile: dir.at("store/pwd.txt"), encoding: .utf8) == dir.at("store") + "\n")
    }

    @Test func aProgramIsNeverGivenToAnApplication() async throws {
        let dir = TemporaryDirectory("import-program")
        let script = dir.at("apps/touch.sh")
        FileTree.makeFolder(dir.at("apps"))
        TestApps.script(script, "touch \"\(dir.at("ran"))\"")
        let app = try TestApps.register(
            TestApps.manifest(
                id: "com.example.pics", name: "Pics", typeID: "com.example.pic", ext: "pic",
                importer: TestApps.command([script, "%f"])),
            as: "pics", in: dir)
        let harness = try ReceiverHarness(in: dir, registry: TestApps.registry([app]))
        try FileManager.default.copyItem(atPath: "/bin/true", toPath: dir.at("holiday.pic"))
        FileTree.writeFile(dir.at("blob.zzq"), size: 5000, seed: 5)

        let report = try await TestSender(in: dir).send([dir.at("holiday.pic"), dir.at("blob.zzq")], to: harness)

        #expect(
            report.items.map(\.text) == [harness.destination + "/holiday.pic", harness.destination + "/blob.zzq"])
        #expect(!FileManager.default.fileExists(atPath: dir.at("ran")), "the importer never ran")
        guard case .received(let transfer) = await harness.nextOutcome() else {
            Issue.record("no received outcome")
            return
        }
        let program = transfer.items[0].result
        // The name keeps its type; the program inside is a disguise, never imported.
        #expect(program.type == "com.example.pic")
        #expect(program.application == nil)
        #expect(program.warnings.contains { $0.contains("disguised as com.example.pic") })
        let unknown = transfer.items[1].result
        #expect(unknown.receiveFolderReason?.hasPrefix("the type could not be determined") == true)
        #expect(inboxEntries(harness.inbox).isEmpty)
    }

    /// A protected document: the importer says it needs the password (exit status 77); a retry with
    /// the password gives it on the importer's standard input only, never in its arguments or
    /// environment; a wrong one keeps the document with that reason.
    @Test func aPasswordReachesTheImporterOnlyOnItsStandardInput() async throws {
        let dir = TemporaryDirectory("import-password")
        FileTree.makeFolder(dir.at("store"))
        let app = try TestApps.scripted(
            "Locker", ext: "locked", in: dir,
            body: """
                IFS= read -r password || { echo "Error: '$1' is protected by a password" >&2; exit 77; }
                [ "$password" = "correct horse" ] || { echo "Error: wrong password" >&2; exit 77; }
                printf '%s\\n' "$@" > "\(dir.at("store/args.txt"))"
                env > "\(dir.at("store/env.txt"))"
                cp "$1" "\(dir.at("store"))/"
                """, folder: dir.at("store"))
        let registry = TestApps.registry([app])
        let harness = try ReceiverHarness(in: dir, registry: registry)
        FileTree.writeText(dir.at("vault.locked"), "ciphertext")

        let report = try await TestSender(in: dir).send([dir.at("vault.locked")], to: harness)

        #expect(report.items.map(\.outcome) == [.keptInInbox])
        #expect(report.items.map(\.text) == ["Locker needs the document's password"])
        guard case .received(let transfer) = await harness.nextOutcome(), let item = transfer.items.first else {
            Issue.record("no received outcome")
            return
        }
        let id = item.result.entry.id
        let inbox = Inbox(directory: harness.inbox)
        #expect(try inbox.entry(id).needsPassword)
        #expect(
            try inbox.entry(id).failure
                == "Locker: the document is protected by a password; 'share inbox import \(id)' asks for it")

        let importer = DocumentImporter(
            inbox: inbox, registry: registry, receiveFolder: harness.destination,
            environment: ProcessInfo.processInfo.environment)
        let wrong = try importer.importEntry(id, password: Array("tr0ub4dor".utf8))
        #expect(!wrong.succeeded)
        #expect(wrong.entry.needsPassword)
        #expect(try inbox.entry(id).failure == "Locker: the password given does not open the document")
        #expect(try inbox.entry(id).attempts == 2)

        let right = try importer.importEntry(id, password: Array("correct horse".utf8))
        #expect(right.succeeded)
        #expect(FileManager.default.contents(atPath: dir.at("store/vault.locked")) == Data("ciphertext".utf8))
        let arguments = try String(contentsOfFile: dir.at("store/args.txt"), encoding: .utf8)
        let environment = try String(contentsOfFile: dir.at("store/env.txt"), encoding: .utf8)
        #expect(!arguments.contains("correct horse") && !environment.contains("correct horse"))
        #expect(inboxEntries(harness.inbox).isEmpty)
    }

    /// Rule 4: a folder whose package type share would have to invent is never imported, even when
    /// an app claims its extension with LSTypeIsPackage.
    @Test func aFolderOfADynamicTypeGoesToTheReceiveFolder() async throws {
        let dir = TemporaryDirectory("import-dynamic-folder")
        let app = try TestApps.register(
            TestApps.claiming(
                id: "com.example.oecore", name: "OECore",
                documentType: """
                    <key>CFBundleTypeExtensions</key><array><string>oecoreplugin</string></array>
                    <key>LSTypeIsPackage</key><true/><key>LSHandlerRank</key><string>Owner</string>
                    """,
                importer: TestApps.folder("move", dir.at("plugins"))),
            as: "oecore", in: dir)
        let harness = try ReceiverHarness(in: dir, registry: TestApps.registry([app]))
        FileTree.makeFolder(dir.at("x.oecoreplugin/Contents"))
        FileTree.writeText(dir.at("x.oecoreplugin/Contents/Info.plist"), "<plist/>")

        let report = try await TestSender(in: dir).send([dir.at("x.oecoreplugin")], to: harness)

        #expect(report.items.map(\.outcome) == [.placed])
        #expect(report.items.map(\.text) == [harness.destination + "/x.oecoreplugin"])
        #expect(!FileManager.default.fileExists(atPath: dir.at("plugins/x.oecoreplugin")))
    }

    /// Rule 3: source files that weak magic used to take for scripts are typed by their names and
    /// imported, not withheld as programs.
    @Test func sourceFilesAreImportedNotWithheldAsPrograms() async throws {
        let dir = TemporaryDirectory("import-source")
        let app = try TestApps.register(
            TestApps.claiming(
                id: "com.example.code", name: "Code",
                documentType: "<key>LSItemContentTypes</key><array><string>public.source-code</string></array>",
                importer: TestApps.folder("copy", dir.at("code"))),
            as: "code", in: dir)
        let harness = try ReceiverHarness(in: dir, registry: TestApps.registry([app]))
        FileTree.writeText(dir.at("app.js"), "\"use strict\";\nmodule.exports = {};\n")
        FileTree.writeText(dir.at("build.mk"), "SHELL=/bin/sh\nall:\n\techo ok\n")
        FileTree.writeText(dir.at("Util.pm"), "package Util;\n1;\n")

        let report = try await TestSender(in: dir).send(
            [dir.at("app.js"), dir.at("build.mk"), dir.at("Util.pm")], to: harness)

        #expect(report.items.map(\.outcome) == [.imported, .imported, .imported])
        #expect(report.items.map(\.text) == ["Code", "Code", "Code"])
        #expect(FileTree.allPaths(dir.at("code")) == ["Util.pm", "app.js", "build.mk"])
    }

    @Test func anUnsafeArchiveIsRefusedAndKept() async throws {
        let dir = TemporaryDirectory("import-badarchive")
        let app = try TestApps.register(
            TestApps.manifest(
                id: "com.example.bugs", name: "Bugs", typeID: "com.example.bug", ext: "sbz",
                conformsTo: "org.gnu.gnu-zip-archive", importer: TestApps.folder("unpack", dir.at("store/bugs"))),
            as: "bugs", in: dir)
        let harness = try ReceiverHarness(in: dir, registry: TestApps.registry([app]))
        let writer = try ArchiveWriter(path: dir.at("Evil.sbz"), format: .tarGzip)
        try writer.addFile("../../escaped.txt", contents: Array("gotcha".utf8))
        try writer.close()

        let report = try await TestSender(in: dir).send([dir.at("Evil.sbz")], to: harness)

        #expect(report.items.map(\.text) == ["Bugs could not import it"])
        guard case .received(let transfer) = await harness.nextOutcome(),
            case .kept(let failure, _) = transfer.items.first?.result.outcome
        else {
            Issue.record("the archive should have been kept")
            return
        }
        #expect(
            failure.hasPrefix("Bugs: cannot unpack 'Evil.sbz': the archive holds an unsafe name '../../escaped.txt'"))
        #expect(FileTree.allPaths(dir.at("store")).filter { !$0.hasPrefix("bugs") }.isEmpty)
        #expect(FileTree.allPaths(dir.at("store/bugs")).isEmpty, "no document, no scratch folder")
        #expect(!FileManager.default.fileExists(atPath: dir.at("escaped.txt")))
    }

    @Test func acrossFilesystemsTheDocumentIsCopiedThenTheInboxCopyRemoved() async throws {
        var shmInfo = stat()
        var tmpInfo = stat()
        try #require(stat("/dev/shm", &shmInfo) == 0 && stat("/tmp", &tmpInfo) == 0, "needs /dev/shm")
        try #require(shmInfo.st_dev != tmpInfo.st_dev, "/dev/shm must be another filesystem than /tmp")
        let dir = TemporaryDirectory("import-xdev")
        let shm = "/dev/shm/share-tests-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        defer { try? FileManager.default.removeItem(atPath: shm) }
        let harness = try ReceiverHarness(in: dir, inbox: shm + "/Inbox")
        FileTree.makeFolder(dir.at("Album"))
        FileTree.writeFile(dir.at("Album/photo.raw"), size: 300_000, seed: 8)
        FileTree.makeFolder(dir.at("Album/Originals"))
        FileTree.writeFile(dir.at("Album/Originals/one.raw"), size: 1_000, seed: 9, mode: 0o600)
        chmod(dir.at("Album/Originals"), 0o555)
        chmod(dir.at("Album"), 0o750)
        symlink("photo.raw", dir.at("Album/latest"))
        FileTree.setModificationTime(dir.at("Album"), seconds: 1_300_000_000)

        let report = try await TestSender(in: dir).send([dir.at("Album")], to: harness)

        #expect(report.items.map(\.text) == [harness.destination + "/Album"])
        #expect(
            FileTree.describe(harness.destination + "/Album", includeRootTime: true)
                == FileTree.describe(dir.at("Album"), includeRootTime: true, asReceived: true))
        #expect(FileTree.allPaths(harness.destination).filter { $0.hasPrefix(".") }.isEmpty, "no scratch folder left")
        // The receiver forgets the offer's completion record once the sender closed after the
        // receipt, which may be after the sender's report: wait until the receiver is done with it.
        _ = await harness.nextOutcome()
        #expect(FileTree.allPaths(shm + "/Inbox").isEmpty)
    }
}
