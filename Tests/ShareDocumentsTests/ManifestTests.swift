import ShareDocuments
import Testing

func file(_ path: String, size: UInt64 = 0, mode: UInt16 = 0o644, type: String = "") -> ManifestEntry {
    ManifestEntry(kind: .file, path: path, mode: mode, size: size, declaredType: type)
}

func folder(_ path: String, mode: UInt16 = 0o755) -> ManifestEntry {
    ManifestEntry(kind: .directory, path: path, mode: mode)
}

func link(_ path: String, to target: String) -> ManifestEntry {
    ManifestEntry(kind: .symlink, path: path, mode: 0o777, linkTarget: target)
}

@Suite struct ManifestTests {
    @Test func describesItemsFilesAndTotals() throws {
        let manifest = try Manifest(entries: [
            file("Report.pdf", size: 10, type: "com.adobe.pdf"),
            folder("Bugs.sbz"),
            file("Bugs.sbz/Data.plist", size: 5),
            folder("Bugs.sbz/Images"),
            file("Bugs.sbz/Images/a.png", size: 7),
            folder("Bugs.sbz/Empty"),
            link("Bugs.sbz/latest.png", to: "Images/a.png"),
            file("empty.txt"),
        ])
        #expect(manifest.items.map(\.name) == ["Report.pdf", "Bugs.sbz", "empty.txt"])
        #expect(manifest.items.map(\.isBundle) == [false, true, false])
        #expect(manifest.items[1].entryRange == 1..<7)
        #expect(manifest.items[1].fileCount == 2)
        #expect(manifest.items[1].byteCount == 12)
        #expect(manifest.fileEntryIndices == [0, 2, 4, 7])
        #expect(manifest.totalBytes == 22)
        #expect(manifest.itemIndex(ofEntry: 5) == 1)
    }

    @Test func refusesStructuralProblems() {
        let cases: [([ManifestEntry], ManifestError)] = [
            ([], .empty),
            ([file("a/b.txt")], .missingParent(path: "a/b.txt")),
            ([file("b/x"), folder("b")], .missingParent(path: "b/x")),
            ([folder("a"), file("b"), file("a/x")], .notContiguous(path: "a/x")),
            ([file("a"), file("a")], .duplicatePath(path: "a")),
            ([ManifestEntry.note(name: "n.txt", text: "hi"), ManifestEntry(kind: .note, path: "m.txt", mode: 0o644, size: 3, content: [0x68, 0x69])],
             .invalidNote(path: "m.txt", reason: "declares 3 bytes but carries 2")),
            ([ManifestEntry(kind: .note, path: "n.txt", mode: 0o644, size: 1, content: [0xFF])],
             .invalidNote(path: "n.txt", reason: "is not valid UTF-8 text")),
            ([folder("d"), ManifestEntry.note(name: "d/n.txt", text: "hi")], .invalidNote(path: "d/n.txt", reason: "is inside a folder")),
            ([ManifestEntry(kind: .file, path: "f", mode: 0o644, size: 1, content: [0x41])],
             .invalidNote(path: "f", reason: "is not a note but carries content")),
            ([ManifestEntry.note(name: "n.txt", text: String(repeating: "x", count: 16_385))],
             .invalidNote(path: "n.txt", reason: "holds 16385 bytes (the limit is 16384)")),
            ([file("x", mode: 0o4755)], .invalidMode(path: "x", mode: 0o4755)),
            ([file("x", mode: 0o1777)], .invalidMode(path: "x", mode: 0o1777)),
            ([ManifestEntry(kind: .directory, path: "d", mode: 0o755, size: 3)], .sizeOnNonFile(path: "d")),
            ([ManifestEntry(kind: .file, path: "f", mode: 0o644, linkTarget: "x")], .linkTargetOnNonLink(path: "f")),
            ([folder("d"), file("d/f", type: "public.data")], .typeOnNestedEntry(path: "d/f")),
            ([file("f", type: "evil type")], .invalidTypeIdentifier(path: "f", identifier: "evil type")),
            ([link("l", to: "x")], .topLevelLink(path: "l")),
            ([folder("d"), link("d/l", to: "/etc/passwd")], .invalidLinkTarget(path: "d/l")),
            ([folder("d"), link("d/l", to: "")], .invalidLinkTarget(path: "d/l")),
            ([ManifestEntry(kind: .file, path: "f", mode: 0o644, modificationNanoseconds: 1_000_000_000)],
             .invalidTime(path: "f")),
            ([file("../x")], .invalidPath(path: "../x", problem: .dotDotComponent)),
        ]
        for (entries, expected) in cases {
            #expect(throws: expected, "entries \(entries.map(\.path))") { try Manifest(entries: entries) }
        }
    }

    @Test func namesThatDifferOnlyInCaseAreValidAndListed() throws {
        let manifest = try Manifest(entries: [
            file("Photo.JPG"), file("photo.jpg"), folder("d"), file("d/caf\u{E9}"), file("d/cafe\u{301}"), file("d/other"),
        ])
        #expect(manifest.caseCollisions == [
            Manifest.CaseCollision(first: "Photo.JPG", second: "photo.jpg"),
            Manifest.CaseCollision(first: "d/caf\u{E9}", second: "d/cafe\u{301}"),
        ])
        #expect(try Manifest(entries: [file("a"), file("b")]).caseCollisions.isEmpty)
        // Canonically equivalent spellings are two names on disk, not one listed twice.
        #expect(throws: ManifestError.duplicatePath(path: "d/caf\u{E9}")) {
            try Manifest(entries: [folder("d"), file("d/caf\u{E9}"), file("d/caf\u{E9}")])
        }
    }

    @Test func notesAreItemsWhoseContentTravelsInTheOffer() throws {
        let manifest = try Manifest(entries: [file("a", size: 3), ManifestEntry.note(name: "Note.txt", text: "héllo")], declaredTotal: 9)
        #expect(manifest.items.map(\.kind) == [.file, .note])
        #expect(manifest.fileCount == 1)
        #expect(manifest.items[1].byteCount == 6)
    }

    @Test func aLinkMustStayInsideWhetherTheFolderHonoursCaseOrNot() {
        // On ext4, `Up` is the folder and the walk goes B/Up/.. = B, then .. leaves B. A resolver
        // that followed the link `up` instead (ignoring case) would wrongly find this inside.
        let escapes = [
            folder("B"), folder("B/Up"), folder("B/a"), folder("B/a/b"), link("B/up", to: "a/b/c"), link("B/l", to: "Up/../../z"),
        ]
        #expect(throws: ManifestError.linkLeavesBundle(path: "B/l", target: "Up/../../z")) { try Manifest(entries: escapes) }
        // On a case-insensitive folder `UP` is the link `up` (-> ..), so `UP/..` is above B.
        let foldedEscape = [folder("B"), folder("B/s"), link("B/s/up", to: ".."), link("B/s/l", to: "UP/../x")]
        #expect(throws: ManifestError.linkLeavesBundle(path: "B/s/l", target: "UP/../x")) { try Manifest(entries: foldedEscape) }
    }

    @Test func refusesLinksThatLeaveTheirBundle() {
        let escaping: [[ManifestEntry]] = [
            [folder("B"), link("B/l", to: "..")],
            [folder("B"), link("B/l", to: "../other")],
            [folder("B"), folder("B/s"), link("B/s/l", to: "../../x")],
            [folder("B"), folder("B/s"), link("B/s/l", to: "x/../../..")],
            // Each lexically inside, but following `up` leaves B.
            [folder("B"), folder("B/s"), folder("B/s/t"), link("B/s/t/up", to: "../.."), link("B/s/t/c", to: "up/../x")],
            // A loop counts as leaving.
            [folder("B"), link("B/a", to: "b"), link("B/b", to: "a")],
            // Found by fuzzing: `Z؀/..` is one component for `Character` splitting, two for the
            // kernel, which resolves this link to ~/.ssh/authorized_keys when B is in ~/Downloads.
            [folder("B"), folder("B/Z\u{600}"), link("B/keys", to: "Z\u{600}/../Z\u{600}/../../../.ssh/authorized_keys")],
            [folder("B"), link("B/l", to: "../\u{301}")],
            // Found by fuzzing: on a case-insensitive receive folder `up` is the link `uP`.
            [folder("B"), folder("B/s"), folder("B/s/t"), link("B/s/t/uP", to: "../.."), link("B/s/t/c", to: "up/../x")],
        ]
        for entries in escaping {
            #expect(throws: ManifestError.self, "entries \(entries.map { "\($0.path)->\($0.linkTarget)" })") {
                try Manifest(entries: entries)
            }
        }
        let inside: [[ManifestEntry]] = [
            [folder("B"), link("B/l", to: ".")],
            [folder("B"), folder("B/s"), link("B/s/l", to: "../x")],
            [folder("B"), folder("B/s"), file("B/s/f"), link("B/l", to: "s/f")],
            [folder("B"), folder("B/s"), link("B/s/up", to: ".."), link("B/c", to: "s/up/s")],
        ]
        for entries in inside {
            #expect(throws: Never.self) { try Manifest(entries: entries) }
        }
    }

    /// Found by fuzzing: the folder `café` (U+00E9) does not hold `cafe` + U+0301 `/x` on the
    /// receiver's filesystem, though Swift's `==` says the two names are equal.
    @Test func findsParentsByteForByte() {
        #expect(throws: ManifestError.missingParent(path: "B/cafe\u{301}/x")) {
            try Manifest(entries: [folder("B"), folder("B/caf\u{E9}"), file("B/cafe\u{301}/x")])
        }
        #expect(throws: ManifestError.missingParent(path: "\u{212A}/x")) {
            try Manifest(entries: [folder("K"), file("\u{212A}/x")])  // the Kelvin sign is canonically K
        }
        #expect(throws: Never.self) {
            try Manifest(entries: [folder("B"), folder("B/cafe\u{301}"), file("B/cafe\u{301}/x")])
        }
    }

    @Test func enforcesCountsAndTotals() {
        let limits = ManifestLimits(maxEntries: 3, maxItems: 2)
        #expect(throws: ManifestError.tooManyEntries(count: 4, limit: 3)) {
            try Manifest(entries: [file("a"), file("b"), file("c"), file("d")], limits: limits)
        }
        #expect(throws: ManifestError.tooManyItems(count: 3, limit: 2)) {
            try Manifest(entries: [file("a"), file("b"), file("c")], limits: limits)
        }
        #expect(throws: ManifestError.totalMismatch(declared: 5, actual: 3)) {
            try Manifest(entries: [file("a", size: 1), file("b", size: 2)], declaredTotal: 5)
        }
        #expect(throws: ManifestError.self) {
            try Manifest(entries: [file("a", size: 1 << 62), file("b", size: 1 << 62)])
        }
    }

    @Test func errorDescriptionsEscapeHostileNames() {
        let error = ManifestError.duplicatePath(path: "evil\u{1B}[2J\u{202E}txt.exe")
        #expect(error.description == "'evil\\u{1B}[2J\\u{202E}txt.exe' is listed twice")
    }
}
