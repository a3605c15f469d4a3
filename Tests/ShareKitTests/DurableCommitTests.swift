import Foundation
import ShareDocuments
@testable import ShareKit
import ShareTLS
import ShareTestSupport
import Testing

/// The receiver makes durable what it wrote before the RECEIPT (docs/ARCHITECTURE.md,
/// "Commit"), in one of two ways chosen from what the system has unwritten: one `syncfs` when little
/// is, or, while other programs have much unwritten data, an `fsync` of every received file and
/// folder, each inbox entry's folder and metadata, the staging area the items left and the inbox
/// they moved into, so it never waits for the other programs' data.
@Suite struct DurableCommitTests {
    static let files: [(path: String, content: [UInt8])] = [
        ("Album/a.txt", Array("first".utf8)),
        ("Album/sub/b.txt", Array(repeating: 7, count: 70_000)),
        ("c.txt", Array("third".utf8)),
    ]
    /// Bytes of the files and the note.
    static let bytes = UInt64(files.map(\.content.count).reduce(0, +) + "hello".utf8.count)

    static func manifest() throws -> Manifest {
        try Manifest(entries: [
            ManifestEntry(kind: .directory, path: "Album", mode: 0o755, modificationSeconds: 1_700_000_000),
            ManifestEntry(kind: .file, path: "Album/a.txt", mode: 0o644, size: UInt64(files[0].content.count)),
            ManifestEntry(kind: .directory, path: "Album/sub", mode: 0o750, modificationSeconds: 1_700_000_001),
            ManifestEntry(kind: .file, path: "Album/sub/b.txt", mode: 0o600, size: UInt64(files[1].content.count)),
            ManifestEntry(kind: .symlink, path: "Album/link", mode: 0o777, linkTarget: "a.txt"),
            ManifestEntry(kind: .file, path: "c.txt", mode: 0o644, size: UInt64(files[2].content.count)),
            ManifestEntry.note(name: "Note.txt", text: "hello"),
        ])
    }

    /// Stages the three files, the note and the folders into a new inbox in `dir` (not committed).
    static func stage(in dir: TemporaryDirectory, busyDiskBytes: UInt64) throws -> (StagingArea, Manifest) {
        let manifest = try manifest()
        let staging = try StagingArea(root: dir.at("inbox"), busyDiskBytes: busyDiskBytes, recordsSyncs: true)
        try staging.prepare(manifest)
        let writer = FileWriter(staging: staging, manifest: manifest)
        writer.start()
        for (index, file) in files.enumerated() {
            writer.open(fileIndex: index)
            writer.write(file.content)
            writer.close(fileIndex: index, expected: SHA256.hash(file.content))
        }
        guard case .success = writer.finish() else {
            Issue.record("the writer failed")
            return (staging, manifest)
        }
        return (staging, manifest)
    }

    static func commit(_ staging: StagingArea, _ manifest: Manifest) throws -> [InboxEntry] {
        let metadata = manifest.items.map {
            InboxEntry(
                name: $0.name, isBundle: $0.isBundle, files: $0.fileCount, bytes: $0.byteCount, senderName: "test",
                senderFingerprint: "", declaredType: nil)
        }
        return try staging.commit(manifest, entries: metadata)
    }

    /// Everything the commit must sync when it syncs its own: the files and the note, the received
    /// folders, each inbox entry's folder and metadata, and the staging area the items left.
    static let ownPaths = [
        "Album/a.txt", "Album/sub/b.txt", "c.txt", "Note.txt",
        "Album", "Album/sub",
        ".share-entry-0", ".share-entry-1", ".share-entry-2",
        ".share-entry-0/.share-entry.json", ".share-entry-1/.share-entry.json", ".share-entry-2/.share-entry.json",
        ".",
    ]

    @Test func onABusyDiskTheCommitSyncsEveryFileAndFolderItWroteAndNotTheFilesystem() throws {
        let dir = TemporaryDirectory("durable-own")
        let (staging, manifest) = try Self.stage(in: dir, busyDiskBytes: 0)
        let entries = try Self.commit(staging, manifest)
        #expect(entries.count == 3)
        #expect(staging.syncMethod == .ownFiles)
        let synced = staging.syncs.syncedPaths
        #expect(!synced.contains("syncfs"), "no syncfs: \(synced)")
        for path in Self.ownPaths {
            #expect(synced.filter { $0 == path }.count == 1, "\(path) is synced once; synced: \(synced)")
        }
        // The inbox after everything in the entries is durable (only then are they renamed into
        // it), then the folders above it (it was created just now).
        let inboxIndex = try #require(synced.firstIndex(of: dir.at("inbox")))
        let lastOwn = Self.ownPaths.compactMap { synced.firstIndex(of: $0) }.max() ?? .max
        #expect(lastOwn < inboxIndex)
        #expect(synced.contains(dir.path))
        let inbox = Inbox(directory: dir.at("inbox"))
        #expect(FileManager.default.contents(atPath: inbox.documentPath(of: entries[2])) == Data("hello".utf8))
        #expect(FileManager.default.contents(atPath: inbox.documentPath(of: entries[1])) == Data("third".utf8))
    }

    @Test func onAQuietDiskTheCommitSyncsTheFilesystemOnce() throws {
        let dir = TemporaryDirectory("durable-quiet")
        let (staging, manifest) = try Self.stage(in: dir, busyDiskBytes: .max)
        let entries = try Self.commit(staging, manifest)
        #expect(entries.count == 3)
        #expect(staging.syncMethod == .filesystem)
        // One syncfs (which covers every file and folder), then the inbox after the renames.
        #expect(staging.syncs.syncedPaths == ["syncfs", dir.at("inbox")])
        let inbox = Inbox(directory: dir.at("inbox"))
        #expect(FileManager.default.contents(atPath: inbox.documentPath(of: entries[2])) == Data("hello".utf8))
    }

    @Test func theThresholdCountsOnlyWhatOtherProgramsHaveUnwritten() throws {
        let dir = TemporaryDirectory("durable-threshold")
        let threshold: UInt64 = 64 << 20
        let (staging, manifest) = try Self.stage(in: dir, busyDiskBytes: threshold)
        // What this transfer wrote is not counted as others' data.
        #expect(staging.chooseSyncMethod(unwritten: threshold + Self.bytes - 1) == .filesystem)
        #expect(staging.chooseSyncMethod(unwritten: threshold + Self.bytes) == .ownFiles)
        #expect(staging.chooseSyncMethod(unwritten: 0) == .filesystem)
        #expect(staging.chooseSyncMethod(unwritten: nil) == .filesystem)
        staging.discard()
        _ = manifest
    }

    @Test func unwrittenDataIsDirtyPlusWriteback() {
        let meminfo = """
            MemTotal:       24684000 kB
            Dirty:             48712 kB
            Writeback:          1024 kB
            WritebackTmp:        512 kB
            """
        #expect(UnwrittenData.parse(meminfo) == (48712 + 1024) * 1024)
        #expect(UnwrittenData.parse("MemTotal: 1 kB\n") == nil)
        #expect(UnwrittenData.systemBytes() != nil, "/proc/meminfo has Dirty and Writeback")
    }

    @Test func aDiscardedTransferSyncsNothingMoreAndLeavesNothing() throws {
        let dir = TemporaryDirectory("durable-discard")
        let manifest = try Self.manifest()
        let staging = try StagingArea(root: dir.at("inbox"), busyDiskBytes: 0, recordsSyncs: true)
        try staging.prepare(manifest)
        staging.discard()
        // A descriptor handed over after the discard is closed, not synced.
        let fd = open(dir.at("late"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        #expect(fd >= 0)
        staging.syncs.add(fd, path: "late")
        #expect(staging.syncs.syncedPaths.isEmpty)
        let left = (try? FileManager.default.contentsOfDirectory(atPath: dir.at("inbox"))) ?? []
        #expect(left.isEmpty, "the staging area is gone: \(left)")
    }
}
