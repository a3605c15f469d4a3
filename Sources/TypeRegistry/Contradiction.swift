/// The content of a file is a program (an ELF, PE or Mach-O header, or `#!`) while its name or
/// the sender's declared type says it is something else: a program in disguise. The resolution
/// keeps the type the name gives, and the item is never handed to an importer.
public struct Contradiction: Hashable, Sendable, CustomStringConvertible {
    /// The type the name (or the declared type) claims.
    public let nameType: TypeIdentifier
    /// The kind of program the content is (`public.unix-executable`, `public.script`, ...).
    public let contentType: TypeIdentifier
    /// What the content was recognised by (`an ELF executable`, `a script (#!/bin/sh)`).
    public let evidence: String

    /// Creates a contradiction.
    public init(nameType: TypeIdentifier, contentType: TypeIdentifier, evidence: String) {
        self.nameType = nameType
        self.contentType = contentType
        self.evidence = evidence
    }

    /// A sentence for the user.
    public var description: String {
        "the name says \(nameType) but the content is \(evidence) (\(contentType)); it is never handed to an importer"
    }
}
