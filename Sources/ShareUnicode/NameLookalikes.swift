/// Tells names that look like others apart (Unicode UTS #39, through ICU): a peer called `dеsk`
/// with a Cyrillic `е`, or `desk ` with a trailing space, looks exactly like `desk` on screen.
public enum NameLookalikes {
    /// Whether `name` mixes scripts that one writing system would not (Latin with Cyrillic or
    /// Greek, say); names in one script, or Latin with Han and Japanese kana, do not.
    public static func mixesScripts(_ name: String) -> Bool {
        SpoofChecker.shared.mixesScripts(name)
    }

    /// The key under which two names look alike: the UTS #39 skeleton of the name without case,
    /// and without the spaces around it.
    public static func key(_ name: String) -> String {
        let trimmed = name.unicodeScalars.drop { $0.properties.isWhitespace }
        var text = String(String.UnicodeScalarView(trimmed))
        while let last = text.unicodeScalars.last, last.properties.isWhitespace { text.unicodeScalars.removeLast() }
        return SpoofChecker.shared.skeleton(SpoofChecker.shared.skeleton(text).lowercased())
    }

    /// Whether `a` and `b` look alike on screen (also when they are equal).
    public static func lookAlike(_ a: String, _ b: String) -> Bool {
        key(a) == key(b)
    }
}
