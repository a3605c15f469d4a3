import ShareDocuments
import ShareKit
import TypeRegistry

/// `--text TEXT` of `share send`: a short text sent as a note (docs/PROTOCOL.md §4), whose content
/// travels in the offer. The receiver shows it in its question (terminal or desktop notification;
/// a web address in it is shown as a link, never opened) and saves it as a `.txt` document.
struct TextNote: Sendable {
    /// The name the document gets on the receiver: `--name` (when it does not name standard
    /// input), with `.txt` added unless it ends so, else `Text.txt`.
    let name: String
    /// The text.
    let text: String

    /// The name a text gets without `--name`.
    static let defaultName = "Text.txt"

    /// Nil without `--text`; a usage error for an empty text, one longer than a note may be, or a
    /// name that is not one file name.
    init?(_ parsed: ParsedArguments) throws(UsageError) {
        guard let text = parsed.value("text") else { return nil }
        if text.allSatisfy(\.isWhitespace) { throw parsed.usageError("The text to send is empty") }
        let limit = ManifestLimits.protocolDefault.maxNoteBytes
        if text.utf8.count > limit {
            throw parsed.usageError(
                "The text is \(text.utf8.count) bytes; a text can be at most \(limit) bytes "
                    + "(send a longer one as a file, or from standard input with '-')")
        }
        var name = Self.defaultName
        if let given = parsed.value("name"), !parsed.positionals.contains("-") {
            try StandardInput.checkFileName(given, parsed)
            name = given.lowercased().hasSuffix(".txt") ? given : given + ".txt"
            if name.utf8.count > 255 { throw parsed.usageError("The name '\(name)' is longer than 255 bytes") }
            try StandardInput.checkAccepted(name, parsed)
        }
        self.name = name
        self.text = text
    }

    /// The note to offer, with the type the sender's registry gives its name.
    func entry(registry: TypeRegistry, now: Int64) -> ManifestEntry {
        .note(
            name: name, text: text, modificationSeconds: now,
            declaredType: OfferTypes.declaredType(forItemAt: name, isDirectory: false, registry: registry))
    }
}
