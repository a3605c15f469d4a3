/// The content of a file clearly disagrees with its name: an ELF or a script named `.jpg`,
/// PNG bytes named `.jpg`, text named `.png`. The content's type is used instead.
public struct Contradiction: Hashable, Sendable, CustomStringConvertible {
    /// The type the file name suggests.
    public let nameType: TypeIdentifier
    /// The type the content shows, which the resolution uses.
    public let contentType: TypeIdentifier
    /// What the content was recognised by (a MIME type's magic, an ELF header, `#!`, text).
    public let evidence: String

    /// Creates a contradiction.
    public init(nameType: TypeIdentifier, contentType: TypeIdentifier, evidence: String) {
        self.nameType = nameType
        self.contentType = contentType
        self.evidence = evidence
    }

    /// A sentence for the user.
    public var description: String {
        "the name says \(nameType) but the content is \(evidence) (\(contentType)); the content's type is used"
    }
}
