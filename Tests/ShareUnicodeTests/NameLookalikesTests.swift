import ShareUnicode
import Testing

@Suite struct NameLookalikesTests {
    @Test(arguments: [
        ("d\u{0435}sk", "desk"),  // Cyrillic е
        ("desk ", "desk"),  // a trailing space
        (" Desk", "desk"),
        ("paypa\u{217C}", "paypal"),  // small roman numeral fifty
        ("g\u{043E}\u{043E}gle", "google"),
    ])
    func namesThatLookAlikeAreFound(_ a: String, _ b: String) {
        #expect(NameLookalikes.lookAlike(a, b), "\(a.debugDescription) looks like \(b.debugDescription)")
    }

    @Test func differentNamesAreNotLookalikes() {
        #expect(!NameLookalikes.lookAlike("desk", "disk"))
        #expect(!NameLookalikes.lookAlike("laptop", "desktop"))
    }

    @Test func mixedScriptsAreReportedButOneScriptIsNot() {
        #expect(NameLookalikes.mixesScripts("d\u{0435}sk"))
        #expect(!NameLookalikes.mixesScripts("desk"))
        #expect(!NameLookalikes.mixesScripts("\u{0440}\u{0430}\u{0431}\u{043E}\u{0447}\u{0438}\u{0439}"))  // рабочий
        #expect(!NameLookalikes.mixesScripts("\u{65E5}\u{672C}\u{306E}PC"))  // 日本のPC
    }
}
