import ShareDocuments
import Testing

@Suite struct AlternativeNameTests {
    @Test(arguments: [
        ("Report.pdf", "Report (2).pdf"),
        ("Bugs.sbz", "Bugs (2).sbz"),
        ("archive.tar.gz", "archive (2).tar.gz"),
        ("Backup.TAR.XZ", "Backup (2).TAR.XZ"),
        ("Notes", "Notes (2)"),
        (".bashrc", ".bashrc (2)"),
        ("my.report.v2.docx", "my.report.v2 (2).docx"),
        ("Version 1. Final", "Version 1. Final (2)"),
    ])
    func insertsTheNumberBeforeTheExtension(_ name: String, _ expected: String) {
        #expect(AlternativeName.candidate(for: name, number: 2) == expected)
    }

    @Test func keepsCandidatesWithin255Bytes() {
        let name = String(repeating: "é", count: 125) + ".pdf"  // 254 bytes
        let candidate = AlternativeName.candidate(for: name, number: 12)
        #expect(candidate.utf8.count <= 255)
        #expect(candidate.hasSuffix(" (12).pdf"))
    }
}

@Suite struct DisplayTextTests {
    @Test func escapesTerminalControlAndBidiCharacters() {
        #expect(DisplayText.escape("plain name.txt") == "plain name.txt")
        #expect(DisplayText.escape("a\u{1B}]0;title\u{7}b") == "a\\u{1B}]0;title\\u{7}b")
        #expect(DisplayText.escape("invoice\u{202E}fdp.exe") == "invoice\\u{202E}fdp.exe")
        #expect(DisplayText.escape("line\r\nbreak") == "line\\u{D}\\u{A}break")
        #expect(DisplayText.escape("日本語 ✓") == "日本語 ✓")
        // Invisible characters and the spaces around a name are made visible.
        #expect(DisplayText.escape("pay\u{AD}pal") == "pay\\u{AD}pal")
        #expect(DisplayText.escape("desk\u{180E}") == "desk\\u{180E}")
        #expect(DisplayText.escape("\u{3164}desk") == "\\u{3164}desk")
        #expect(DisplayText.escape("desk\u{E0041}\u{E0042}") == "desk\\u{E0041}\\u{E0042}")
        #expect(DisplayText.escape("a\u{2066}b\u{2069}") == "a\\u{2066}b\\u{2069}")
        #expect(DisplayText.escape("desk ") == "desk\\u{20}")
        #expect(DisplayText.escape(" desk") == "\\u{20}desk")
        #expect(DisplayText.escape("my desk") == "my desk")
    }
}
