import ShareDocuments
import Testing

/// The compact entry list a manifest is made of: it reads back what was put in, shares its storage
/// with its windows, and lets an offer of as many entries as the limit allows through while the next
/// entry is refused.
@Suite struct ManifestEntriesTests {
    @Test func readsBackEveryFieldOfEveryKind() {
        let entries: [ManifestEntry] = [
            ManifestEntry(
                kind: .directory, path: "Bundle.sbz", mode: 0o755, modificationSeconds: -5, modificationNanoseconds: 7,
                declaredType: "com.example.bundle"),
            ManifestEntry(kind: .file, path: "Bundle.sbz/é.txt", mode: 0o600, modificationSeconds: 1_700_000_000, size: 1 << 40),
            ManifestEntry(kind: .symlink, path: "Bundle.sbz/latest", mode: 0o777, linkTarget: "é.txt"),
            .note(name: "note.txt", text: "héllo\n", declaredType: "public.plain-text"),
            ManifestEntry(kind: .file, path: "e\u{301}.txt", mode: 0o644),
        ]
        let compact = ManifestEntries(entries)
        #expect(Array(compact) == entries)
        #expect(compact.count == 5)
        #expect(compact.encodedSize == entries.reduce(0) { $0 + $1.encodedSize })
        #expect(compact.map(\.path) == entries.indices.map { compact.path(at: $0) })
        #expect(compact.kind(at: 2) == .symlink && compact.size(at: 1) == 1 << 40)
        // Byte for byte: the decomposed é stays decomposed.
        #expect(Array(compact.path(at: 4).utf8) == Array("e\u{301}.txt".utf8))
        #expect(compact.withPathBytes(at: 1) { Array($0) } == Array("Bundle.sbz/é.txt".utf8))
    }

    @Test func windowsShareTheEntriesAndAppendingCopiesThem() {
        let entries = (0..<10).map { ManifestEntry(kind: .file, path: "file-\($0).txt", mode: 0o644, size: UInt64($0)) }
        let all = ManifestEntries(entries)
        let middle = all.window(3..<7)
        #expect(Array(middle) == Array(entries[3..<7]))
        #expect(middle.encodedSize == entries[3..<7].reduce(0) { $0 + $1.encodedSize })
        var joined = all.window(0..<3)
        joined.append(contentsOf: all.window(3..<10))
        #expect(joined == all)
        var grown = middle
        grown.append(entries[0])
        #expect(Array(grown) == Array(entries[3..<7]) + [entries[0]])
        #expect(Array(middle) == Array(entries[3..<7]), "the window it came from is unchanged")
    }

    /// A folder of `folders` folders of 999 files, the shape of a photo library, with one file
    /// fewer in the last folder: 1,000 folders make 1,000,000 entries.
    static func library(folders: Int) -> ManifestEntries {
        var entries = ManifestEntries()
        entries.reserveCapacity(folders * 1_000)
        entries.append(ManifestEntry(kind: .directory, path: "Photos", mode: 0o755))
        for folder in 0..<folders {
            let name = "Photos/\(folder + 1_000)"
            entries.append(ManifestEntry(kind: .directory, path: name, mode: 0o755))
            for photo in 0..<(folder == folders - 1 ? 998 : 999) {
                entries.append(ManifestEntry(kind: .file, path: "\(name)/IMG_\(photo + 100_000).JPG", mode: 0o644, size: 1))
            }
        }
        return entries
    }

    /// The limit counts entries, not files: 20 folders of 999 files make 20,000 entries (a million
    /// against the real receiver: MillionEntryOfferTests).
    @Test func theLastEntryTheLimitAllowsIsAnOfferAndOneMoreIsRefused() throws {
        let entries = Self.library(folders: 20)
        let limits = ManifestLimits(maxEntries: 20_000)
        #expect(entries.count == 20_000)
        let manifest = try Manifest(entries: entries, limits: limits)
        #expect(manifest.items.count == 1)
        #expect(manifest.fileCount == 19_979)
        #expect(manifest.totalBytes == 19_979)
        #expect(manifest.caseCollisions.isEmpty)

        var tooMany = entries
        tooMany.append(ManifestEntry(kind: .file, path: "Photos/1019/one-more.JPG", mode: 0o644))
        #expect(throws: ManifestError.tooManyEntries(count: 20_001, limit: 20_000)) {
            try Manifest(entries: tooMany, limits: limits)
        }
    }

    @Test func aDuplicateOrACaseTwinAmongManyIsFound() throws {
        var entries = Self.library(folders: 20)
        entries.append(ManifestEntry(kind: .file, path: "Photos/1019/img_100000.jpg", mode: 0o644))
        let manifest = try Manifest(entries: entries)
        #expect(manifest.caseCollisions == [.init(first: "Photos/1019/IMG_100000.JPG", second: "Photos/1019/img_100000.jpg")])
        entries.append(ManifestEntry(kind: .file, path: "Photos/1000/IMG_100500.JPG", mode: 0o644))
        #expect(throws: ManifestError.duplicatePath(path: "Photos/1000/IMG_100500.JPG")) { try Manifest(entries: entries) }
        var orphan = Self.library(folders: 20)
        orphan.append(ManifestEntry(kind: .file, path: "Photos/1000/IMG_100500.JPG/inside", mode: 0o644))
        #expect(throws: ManifestError.missingParent(path: "Photos/1000/IMG_100500.JPG/inside")) { try Manifest(entries: orphan) }
    }
}
