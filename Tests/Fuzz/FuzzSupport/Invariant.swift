import ShareDocuments

/// Checks a fuzz target makes. A broken invariant traps, so libFuzzer reports a "deadly signal" and
/// saves the input as `crash-<sha1>` (run the targets with `SWIFT_BACKTRACE=enable=no`).
public enum Invariant {
    /// Traps with `message` unless `condition` holds.
    public static func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fatalError("invariant broken: " + message()) }
    }

    /// Traps unless `text` is safe to print on a terminal: no control, bidirectional or invisible
    /// formatting character (the set ``DisplayText/isUnsafe(_:)`` escapes).
    public static func requirePrintable(_ text: String, _ what: @autoclosure () -> String) {
        if let scalar = text.unicodeScalars.first(where: DisplayText.isUnsafe) {
            fatalError("invariant broken: \(what()) prints U+\(String(scalar.value, radix: 16)) raw: \(text.debugDescription)")
        }
    }

    /// Whether two strings have the same UTF-8 bytes. Swift's `==` compares canonical equivalence
    /// (`é` equals `e` + U+0301, the Kelvin sign equals `K`), the filesystem compares bytes.
    public static func sameBytes(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
        a.utf8.elementsEqual(b.utf8)
    }
}
