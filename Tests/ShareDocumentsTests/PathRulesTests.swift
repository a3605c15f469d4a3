import ShareDocuments
import Testing

@Suite struct PathRulesTests {
    @Test(arguments: ["Report.pdf", "Bugs.sbz/Data.plist", "a/b/c/d.txt", "ünïcödé/名前.txt", ".hidden", "a b/c d"])
    func acceptsOrdinaryRelativePaths(_ path: String) {
        #expect(PathRules.problem(in: path) == nil)
    }

    @Test func refusesEveryUnsafeShape() {
        let cases: [(String, PathProblem)] = [
            ("", .empty),
            ("/etc/passwd", .absolute),
            ("//tmp/x", .absolute),
            ("a//b", .emptyComponent),
            ("a/", .emptyComponent),
            ("./a", .dotComponent),
            ("a/./b", .dotComponent),
            ("..", .dotDotComponent),
            ("../.bashrc", .dotDotComponent),
            ("sub/../../x", .dotDotComponent),
            ("a\u{0}b", .forbiddenCharacter("\u{0}")),
            ("a\u{1B}[2Jb", .forbiddenCharacter("\u{1B}")),
            ("a\nb", .forbiddenCharacter("\n")),
            ("a\u{85}b", .forbiddenCharacter("\u{85}")),
            ("c:\\..\\x", .forbiddenCharacter("\\")),
            (".share-staging", .reservedName),
            (".share-staging/x", .reservedName),
        ]
        for (path, problem) in cases {
            #expect(PathRules.problem(in: path) == problem, "path \(path.debugDescription)")
        }
    }

    /// Names that are not names: nothing to see, only dots, or what a shell reads as a home
    /// folder. Refused at every depth, as control characters are.
    @Test func refusesNamesThatAreNotNames() {
        let cases: [(String, PathProblem)] = [
            (" ", .blankComponent),
            ("   ", .blankComponent),
            ("a/ /b", .blankComponent),
            ("\u{3000}", .blankComponent),
            ("\u{200B}", .blankComponent),
            ("\u{A0}\u{FEFF}", .blankComponent),
            ("\u{3164}", .blankComponent),
            ("...", .dotsComponent),
            ("....", .dotsComponent),
            ("a/.../b", .dotsComponent),
            (". .", .dotsComponent),
            (".\u{200B}.", .dotsComponent),
            ("~", .homeFolderComponent),
            ("~/x", .homeFolderComponent),
            ("~root", .homeFolderComponent),
            ("~bob/.ssh/authorized_keys", .homeFolderComponent),
            ("Bundle/~", .homeFolderComponent),
            ("~+", .homeFolderComponent),
            ("~-1", .homeFolderComponent),
            ("~2", .homeFolderComponent),
            ("~_svc-backup", .homeFolderComponent),
        ]
        for (path, problem) in cases {
            #expect(PathRules.problem(in: path) == problem, "path \(path.debugDescription)")
        }
        #expect(PathProblem.homeFolderComponent.description.contains("'~'"))
    }

    /// What stays allowed: names with a dot or white space among other characters, and a `~`
    /// that no shell expands.
    @Test(arguments: [
        "...txt", "a.", "..a", ".a.", " a", "a ", "a b", "~$Report.docx", "backup~", "a~b", "~ x", "Notes/~$lock.odt",
        ".~lock.Report.odt#", "x/ .hidden", "名\u{3000}前", "~WRL0001.tmp", "~.txt", "~draft.txt", "~+x", "~1a",
    ])
    func acceptsNamesWithDotsSpacesAndTildesAmongOtherCharacters(_ path: String) {
        #expect(PathRules.problem(in: path) == nil)
    }

    /// Found by fuzzing (FuzzBundlePaths): `/` followed by a combining mark, or preceded by a
    /// prepended concatenation mark such as U+0600, is one Swift `Character`, so splitting on
    /// `Character`s hid the components the kernel sees.
    @Test func splitsOnSlashesTheWayTheKernelDoes() {
        let cases: [(String, PathProblem)] = [
            ("../\u{301}x", .dotDotComponent),
            ("x\u{600}/..", .dotDotComponent),
            ("B/Z\u{600}/../../\u{301}etc", .dotDotComponent),
            ("a//\u{301}b", .emptyComponent),
            ("a/./\u{301}b", .dotComponent),
            ("a\u{600}/", .emptyComponent),
            (".share-\u{301}x", .reservedName),
            (Array(repeating: "d", count: 65).joined(separator: "/\u{301}"), .tooDeep(depth: 65, limit: 64)),
        ]
        for (path, problem) in cases {
            #expect(PathRules.problem(in: path) == problem, "path \(path.unicodeScalars.map(\.value))")
        }
        #expect(PathRules.components(of: "a/\u{301}b/c\u{600}/d") == ["a", "\u{301}b", "c\u{600}", "d"])
        #expect(PathRules.problem(in: "a/\u{301}b/c\u{600}/d") == nil)
    }

    @Test func enforcesLengthAndDepthLimits() {
        let longComponent = String(repeating: "x", count: 256)
        #expect(PathRules.problem(in: longComponent) == .componentTooLong(bytes: 256, limit: 255))
        #expect(PathRules.problem(in: String(repeating: "x", count: 255)) == nil)
        let deep = Array(repeating: "d", count: 65).joined(separator: "/")
        #expect(PathRules.problem(in: deep) == .tooDeep(depth: 65, limit: 64))
        let long = Array(repeating: String(repeating: "y", count: 200), count: 21).joined(separator: "/")
        #expect(PathRules.problem(in: long) == .tooLong(bytes: 4220, limit: 4096))
    }

    @Test func collisionKeysMergeCaseAndUnicodeForms() {
        #expect(PathRules.collisionKey("Report.PDF") == PathRules.collisionKey("report.pdf"))
        #expect(PathRules.collisionKey("caf\u{E9}") == PathRules.collisionKey("cafe\u{301}"))
        #expect(PathRules.collisionKey("a") != PathRules.collisionKey("b"))
    }
}
