/// Names to try when the name a document wants is taken: `Report (2).pdf`, `Bugs (2).sbz`.
///
/// The number goes before the extension (a known compound extension such as `.tar.gz` stays
/// together); a name that starts with a dot and has no other dot keeps its whole name as the stem.
/// Every candidate fits in 255 bytes: the stem is shortened (at a character boundary) if needed.
public enum AlternativeName {
    /// Extensions made of two parts that must stay together.
    static let compoundExtensions = ["tar.gz", "tar.bz2", "tar.xz", "tar.zst", "tar.lz", "tar.lzma", "tar.Z"]

    /// The candidate for attempt `number` (2, 3, ...) of `name`.
    public static func candidate(for name: String, number: Int, maxBytes: Int = 255) -> String {
        let (stem, ext) = split(name)
        let suffix = " (\(number))" + ext
        var shortStem = Substring(stem)
        while shortStem.utf8.count + suffix.utf8.count > maxBytes, !shortStem.isEmpty {
            shortStem = shortStem.dropLast()
        }
        return String(shortStem) + suffix
    }

    /// Splits `name` into stem and extension (the extension keeps its leading dot, or is empty).
    public static func split(_ name: String) -> (stem: String, ext: String) {
        let lower = name.lowercased()
        for compound in compoundExtensions where lower.hasSuffix("." + compound.lowercased()) {
            let stemLength = name.count - compound.count - 1
            if stemLength > 0 {
                let cut = name.index(name.startIndex, offsetBy: stemLength)
                return (String(name[..<cut]), String(name[cut...]))
            }
        }
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        let ext = name[dot...]
        if ext.count == 1 || ext.count > 16 || ext.contains(" ") { return (name, "") }
        return (String(name[..<dot]), String(ext))
    }
}
