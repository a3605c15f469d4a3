import Testing

@testable import ShareDocuments

/// `PathRules.problem(in:)` judges most paths in one pass over their bytes (`isPlain`) and takes only
/// the others apart: both ways must give the same answer for every path.
@Suite struct PathRulesFastPathTests {
    @Test func theOnePassAgreesWithTakingPathsApart() {
        var limits = ManifestLimits.protocolDefault
        limits.maxPathBytes = 24
        limits.maxComponentBytes = 6
        limits.maxDepth = 4
        let pieces = [
            "a", "b", "é", "名", ".", "..", "...", "/", "/", "/", "\\", "\u{0}", "\u{1F}", "\u{7F}", "\u{85}",
            "\u{9F}", "\u{A0}", "\u{301}", ".share-", ".share", "-", " ", "~", "~", "\u{200B}", "\u{3000}", "$",
        ]
        // A fixed generator, so a failure can be reproduced.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % UInt64(bound))
        }
        for _ in 0..<50_000 {
            let path = (0..<next(10)).map { _ in pieces[next(pieces.count)] }.joined()
            for candidate in [path, String(path.prefix(30))] {
                let expected = PathRules.problemTakingApart(candidate, limits: limits)
                #expect(PathRules.problem(in: candidate, limits: limits) == expected, "\(candidate.debugDescription)")
                if PathRules.isPlain(candidate, limits: limits) { #expect(expected == nil, "\(candidate.debugDescription)") }
            }
        }
    }
}
