import Foundation
import ShareArchive
import ShareTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Archives from someone else: what a user's document store must and must not receive.
@Suite struct ArchiveExtractorTests {
    @Test(arguments: ArchiveFormat.allCases) func roundTripsAFolderWithLinksModesAndTimes(
        _ format: ArchiveFormat
    ) throws {
        let dir = TemporaryDirectory("archive-roundtrip")
        FileTree.makeFolder(dir.at("Potato Bug/Images"))
        FileTree.writeText(dir.at("Potato Bug/data.plist"), "<plist><dict/></plist>")
        FileTree.writeFile(dir.at("Potato Bug/Images/full.png"), size: 300_000, seed: 3, mode: 0o600)
        FileTree.makeFolder(dir.at("Potato Bug/Empty"))
        symlink("Images/full.png", dir.at("Potato Bug/latest.png"))
        FileTree.setModificationTime(dir.at("Potato Bug/data.plist"), seconds: 1_600_000_000)
        let archive = dir.at("bug.\(format.rawValue)")
        let writer = try ArchiveWriter(path: archive, format: format)
        try writer.addFolder("Potato Bug", modificationTime: 1_500_000_000)
        try writer.addContents(of: dir.at("Potato Bug"), prefix: "Potato Bug")
        try writer.close()

        FileTree.makeFolder(dir.at("out"))
        let summary = try ArchiveExtractor.extract(archiveAt: archive, into: dir.at("out"))

        #expect(summary.topLevelNames == ["Potato Bug"])
        #expect(summary.files == 2)
        #expect(summary.links == 1)
        #expect(summary.bytes == 300_000 + 22)
        let original = FileTree.describe(dir.at("Potato Bug")).filter {
            !$0.hasPrefix("/ dir") && !$0.hasPrefix("Empty/") && !$0.hasPrefix("Images/")
        }
        let extracted = FileTree.describe(dir.at("out/Potato Bug")).filter {
            !$0.hasPrefix("/ dir") && !$0.hasPrefix("Empty/") && !$0.hasPrefix("Images/")
        }
        // Files keep content, mode and (whole-second) time; the link stays a link.
        #expect(extracted == original)
        #expect(FileManager.default.fileExists(atPath: dir.at("out/Potato Bug/Empty")))
    }

    @Test(arguments: [
        ("../escape.txt", "'..'"),
        ("/etc/evil", "absolute"),
        ("a//b", "empty"),
        ("bad\u{1B}[2Jname", "character"),
    ])
    func refusesUnsafeNamesAndWritesNothingOutside(_ name: String, _ problem: String) throws {
        let dir = TemporaryDirectory("archive-unsafe")
        let archive = dir.at("evil.tar.gz")
        let writer = try ArchiveWriter(path: archive, format: .tarGzip)
        try writer.addFile(name, contents: Array("pwned".utf8))
        try writer.close()
        FileTree.makeFolder(dir.at("out/store"))

        #expect {
            _ = try ArchiveExtractor.extract(archiveAt: archive, into: dir.at("out/store"))
        } throws: { error in
            guard case ArchiveError.unsafePath = error else { return false }
            return "\(error)".contains("unsafe name") && "\(error)".lowercased().contains(problem.lowercased())
                && !"\(error)".contains("\u{1B}")
        }
        #expect(FileTree.allPaths(dir.at("out")) == ["store"])
        #expect(!FileManager.default.fileExists(atPath: "/etc/evil"))
    }

    @Test func refusesALinkLeavingTheTreeAndWritesItNowhere() throws {
        let dir = TemporaryDirectory("archive-link")
        let archive = dir.at("evil.tar.gz")
        let writer = try ArchiveWriter(path: archive, format: .tarGzip)
        try writer.addFolder("Bug")
        try writer.addLink("Bug/passwd", target: "../../../../etc/passwd")
        try writer.close()
        FileTree.makeFolder(dir.at("out"))
        #expect(throws: ArchiveError.linkLeavesTree(path: "Bug/passwd", target: "../../../../etc/passwd")) {
            try ArchiveExtractor.extract(archiveAt: archive, into: dir.at("out"))
        }
        #expect(!FileManager.default.fileExists(atPath: dir.at("out/Bug/passwd")))
    }

    @Test func aLinkIsNeverFollowedByALaterFile() throws {
        // A link to a folder followed by a file "through" it: the file must not land outside.
        let dir = TemporaryDirectory("archive-linkwrite")
        FileTree.makeFolder(dir.at("outside"))
        let archive = dir.at("evil.tar.gz")
        let writer = try ArchiveWriter(path: archive, format: .tarGzip)
        try writer.addFolder("Bug")
        try writer.addLink("Bug/sub", target: ".")
        try writer.addFile("Bug/sub/x.txt", contents: Array("x".utf8))
        try writer.close()
        FileTree.makeFolder(dir.at("out"))
        _ = try? ArchiveExtractor.extract(archiveAt: archive, into: dir.at("out"))
        // Links come last, so the file was written into a real folder inside the tree.
        #expect(FileTree.allPaths(dir.at("outside")).isEmpty)
        var info = stat()
        #expect(lstat(dir.at("out/Bug/sub"), &info) != 0 || (info.st_mode & S_IFMT) == S_IFDIR)
    }

    @Test func refusesHardLinksAndSpecialFiles() throws {
        let dir = TemporaryDirectory("archive-special")
        let hard = dir.at("hard.tar.gz")
        let writer = try ArchiveWriter(path: hard, format: .tarGzip)
        try writer.addFile("a.txt", contents: Array("a".utf8))
        try writer.addHardLink("b.txt", target: "/etc/shadow")
        try writer.close()
        FileTree.makeFolder(dir.at("out1"))
        #expect(throws: ArchiveError.hardLink(path: "b.txt")) {
            try ArchiveExtractor.extract(archiveAt: hard, into: dir.at("out1"))
        }

        let fifo = dir.at("fifo.tar.gz")
        let second = try ArchiveWriter(path: fifo, format: .tarGzip)
        try second.addFIFO("pipe")
        try second.close()
        FileTree.makeFolder(dir.at("out2"))
        #expect(throws: ArchiveError.specialFile(path: "pipe")) {
            try ArchiveExtractor.extract(archiveAt: fifo, into: dir.at("out2"))
        }
        #expect(FileTree.allPaths(dir.at("out2")).isEmpty)
    }

    @Test func refusesDuplicatesAndCaseCollisions() throws {
        let dir = TemporaryDirectory("archive-dup")
        let archive = dir.at("dup.zip")
        let writer = try ArchiveWriter(path: archive, format: .zip)
        try writer.addFile("Notes.txt", contents: Array("one".utf8))
        try writer.addFile("notes.TXT", contents: Array("two".utf8))
        try writer.close()
        FileTree.makeFolder(dir.at("out"))
        #expect(throws: ArchiveError.duplicatePath(path: "notes.TXT")) {
            try ArchiveExtractor.extract(archiveAt: archive, into: dir.at("out"))
        }
        #expect(FileManager.default.contents(atPath: dir.at("out/Notes.txt")) == Data("one".utf8))
    }

    @Test func boundsTheExpandedSizeWhateverTheCompressionRatio() throws {
        // 8 MiB of zeros compress to a few KiB: a small zip bomb.
        let dir = TemporaryDirectory("archive-bomb")
        let archive = dir.at("bomb.zip")
        let writer = try ArchiveWriter(path: archive, format: .zip)
        try writer.addFile("zeros.bin", contents: [UInt8](repeating: 0, count: 8 << 20))
        try writer.close()
        var info = stat()
        stat(archive, &info)
        #expect(info.st_size < 100_000)
        FileTree.makeFolder(dir.at("out"))
        #expect(throws: ArchiveError.tooLarge(limit: 1 << 20)) {
            try ArchiveExtractor.extract(
                archiveAt: archive, into: dir.at("out"), limits: ArchiveLimits(maxTotalBytes: 1 << 20))
        }
        stat(dir.at("out/zeros.bin"), &info)
        #expect(info.st_size <= 1 << 20 + 65_536, "writing stops at the limit")
    }

    @Test func boundsTheEntryCount() throws {
        let dir = TemporaryDirectory("archive-count")
        let archive = dir.at("many.tar.gz")
        let writer = try ArchiveWriter(path: archive, format: .tarGzip)
        for index in 0..<20 { try writer.addFile("f\(index)", contents: []) }
        try writer.close()
        FileTree.makeFolder(dir.at("out"))
        #expect(throws: ArchiveError.tooManyEntries(limit: 10)) {
            try ArchiveExtractor.extract(archiveAt: archive, into: dir.at("out"), limits: ArchiveLimits(maxEntries: 10))
        }
    }

    @Test func aFileThatIsNotAnArchiveIsAClearError() throws {
        let dir = TemporaryDirectory("archive-garbage")
        FileTree.writeText(dir.at("notes.txt"), "just some text, not an archive\n")
        FileTree.makeFolder(dir.at("out"))
        #expect {
            _ = try ArchiveExtractor.extract(archiveAt: dir.at("notes.txt"), into: dir.at("out"))
        } throws: { error in
            guard case ArchiveError.unreadable = error else { return false }
            return "\(error)".hasPrefix("the archive is damaged or not a supported archive")
        }
    }
}
