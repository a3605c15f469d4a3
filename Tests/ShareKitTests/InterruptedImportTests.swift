import Foundation
import ShareKit
import ShareTestSupport
import Testing

/// Imports interrupted by the death of the receiver (docs/ARCHITECTURE.md, "Import"): the next
/// import of the entry never hands a document over twice, and never loses it.
@Suite struct InterruptedImportTests {
    /// What a received document whose import failed left: its entry, and an importer for it.
    struct Received {
        let inbox: Inbox
        let id: String
        let importer: DocumentImporter
    }

    /// Receives `name` (with "payload") through an application whose importer `body` failed the
    /// first time.
    func receive(_ name: String, app: String, body: String, in dir: TemporaryDirectory) async throws -> Received {
        FileTree.makeFolder(dir.at("store"))
        let ext = String(name.split(separator: ".").last ?? "")
        let registry = TestApps.registry(
            [try TestApps.scripted(app, ext: ext, in: dir, body: body, folder: dir.at("store"))])
        let harness = try ReceiverHarness(in: dir, registry: registry)
        FileTree.writeText(dir.at(name), "payload")
        _ = try await TestSender(in: dir).send([dir.at(name)], to: harness)
        let inbox = Inbox(directory: harness.inbox)
        let importer = DocumentImporter(
            inbox: inbox, registry: registry, receiveFolder: harness.destination,
            environment: ProcessInfo.processInfo.environment)
        return Received(inbox: inbox, id: try #require(inboxEntries(harness.inbox).first), importer: importer)
    }

    /// Rewrites an entry's metadata as a receiver killed in the middle of its import leaves it.
    func interrupt(_ inbox: Inbox, _ id: String, handoff: String?) throws {
        let path = inbox.folder(of: id) + "/" + Inbox.metadataName
        var object = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        object["state"] = "pending"
        object["handoff"] = handoff
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
    }

    @Test func anImporterThatMayHaveRunIsNotRunAgainByItselfAndTheDocumentStays() async throws {
        let dir = TemporaryDirectory("import-interrupted")
        let body = """
            echo run >> "\(dir.at("runs"))"
            [ -e "\(dir.at("ready"))" ] || exit 3
            cp "$1" "\(dir.at("store"))/"
            """
        let received = try await receive("doc.keep", app: "Keeper", body: body, in: dir)
        let (inbox, id, importer) = (received.inbox, received.id, received.importer)
        FileTree.writeText(dir.at("ready"), "")
        let runsBefore = FileTree.readText(dir.at("runs"))

        // Killed while Keeper was importing: it may have the document already.
        try interrupt(inbox, id, handoff: "Keeper")
        let result = try importer.importEntry(id)
        #expect(!result.succeeded)
        #expect(FileTree.readText(dir.at("runs")) == runsBefore, "the importer was not run again")
        let entry = try inbox.entry(id)
        #expect(entry.state == .failed)
        #expect(entry.failure?.contains("the receiver stopped while handing it to Keeper") == true, "\(entry)")
        #expect(entry.handoff == nil)
        #expect(FileManager.default.contents(atPath: inbox.documentPath(of: entry)) == Data("payload".utf8))

        // Its user decides: imported once, on request.
        #expect(try importer.importEntry(id).succeeded)
        #expect(FileManager.default.contents(atPath: dir.at("store/doc.keep")) == Data("payload".utf8))
        #expect(inboxEntries(inbox.directory).isEmpty)
    }

    @Test func aDocumentAlreadyHandedOverLeavesNoEntryBehindAndIsNotHandedOverAgain() async throws {
        let dir = TemporaryDirectory("import-moved")
        let body = "echo run >> \"\(dir.at("runs"))\"; exit 3"
        let received = try await receive("doc.move", app: "Mover", body: body, in: dir)
        let (inbox, id, importer) = (received.inbox, received.id, received.importer)
        let runsBefore = FileTree.readText(dir.at("runs"))

        // Killed between the rename that handed the document over and the removal of its entry.
        try interrupt(inbox, id, handoff: nil)
        try FileManager.default.removeItem(atPath: inbox.folder(of: id) + "/doc.move")
        let result = try importer.importEntry(id)
        #expect(result.succeeded)
        #expect(FileTree.readText(dir.at("runs")) == runsBefore, "nothing was handed over again")
        #expect(inboxEntries(inbox.directory).isEmpty)
    }
}
