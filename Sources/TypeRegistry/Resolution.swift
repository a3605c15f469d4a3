/// The registry's decision about a received item's type, with the evidence behind it.
public struct Resolution: Hashable, Sendable {
    /// What the decision rests on.
    public enum Basis: String, Hashable, Sendable {
        /// A directory: a package type by its extension, or a plain folder.
        case directory
        /// The file name (its extensions or literal name).
        case fileName
        /// The content (magic, or the text heuristic).
        case content
        /// The sender's declared type, which the name and content did not contradict.
        case declaredType
        /// Nothing usable: `public.data`.
        case fallback
    }

    /// The item's name (last path component), for matching handlers that claim extensions.
    public let fileName: String
    /// The chosen type: what importers are picked for.
    public let type: TypeIdentifier
    /// The MIME type of the result: the shared-mime-info type whose glob or magic decided, or
    /// ``TypeRegistry/preferredMIMEType(for:)`` of ``type``. Always usable (`type/subtype`).
    public let mimeType: String
    /// What the choice rests on.
    public let basis: Basis
    /// The types the name suggests, best first.
    public let nameTypes: [TypeIdentifier]
    /// The type the content shows by magic, if any.
    public let contentType: TypeIdentifier?
    /// The MIME type whose magic matched, if any.
    public let contentMIMEType: String?
    /// The sender's declared type, as understood (a MIME type is mapped to a type).
    public let declaredType: TypeIdentifier?
    /// Set when the content is a program while the name or the declared type says it is something
    /// else: a disguise, never handed to an importer. The type stays what the name says.
    public let contradiction: Contradiction?
    /// Set when the type (by the name, or the sender's declared type) is a format whose files always
    /// begin with a signature (``ContentSignature``) and the content lacks it: the file is not what
    /// it says, and ``TypeRegistry/importChoice(for:)`` keeps it from that type's importer.
    public let mismatch: ContentMismatch?
    /// Whether the content is a program: an ELF, PE or Mach-O executable or a `#!` script, by its
    /// first bytes, whatever its type.
    public let isExecutable: Bool
    /// Whether the type is known and specific: not dynamic, not merely `public.data`/`public.item`.
    public let isResolved: Bool
    /// Whether the item may be handed to an importer: resolved, and not an executable or script
    /// disguised as something else (by its name or by the sender's declared type).
    public let isSafe: Bool
    /// Things the user should know (contradictions, disguises, a rejected declared type).
    public let warnings: [String]
    /// Every step of the decision, for `share types resolve --explain`.
    public let trace: [String]

    /// Creates a resolution.
    public init(
        fileName: String, type: TypeIdentifier, mimeType: String, basis: Basis, nameTypes: [TypeIdentifier],
        contentType: TypeIdentifier?,
        contentMIMEType: String?, declaredType: TypeIdentifier?, contradiction: Contradiction?, isExecutable: Bool,
        isResolved: Bool, isSafe: Bool, warnings: [String], trace: [String], mismatch: ContentMismatch? = nil
    ) {
        self.fileName = fileName
        self.type = type
        self.mimeType = mimeType
        self.basis = basis
        self.nameTypes = nameTypes
        self.contentType = contentType
        self.contentMIMEType = contentMIMEType
        self.declaredType = declaredType
        self.contradiction = contradiction
        self.mismatch = mismatch
        self.isExecutable = isExecutable
        self.isResolved = isResolved
        self.isSafe = isSafe
        self.warnings = warnings
        self.trace = trace
    }
}
