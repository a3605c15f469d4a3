/// How a summary counts what a transfer carried: a text (`--text`) travels in the offer and is
/// counted as a text, never as a file; with no file, nothing was hashed.
struct ContentCount {
    /// Texts among the items.
    var texts: Int
    /// Files (inside bundles too).
    var files: Int

    /// "1 file", "3 files", "1 text", "1 text and 2 files".
    var text: String {
        let fileCount = files == 1 ? "1 file" : "\(files) files"
        guard texts > 0 else { return fileCount }
        return (texts == 1 ? "1 text" : "\(texts) texts") + (files == 0 ? "" : " and " + fileCount)
    }

    /// How the summary ends: the hashes verified, or nothing when only texts came.
    var verified: String { texts > 0 && files == 0 ? "." : ", SHA-256 verified." }
}
