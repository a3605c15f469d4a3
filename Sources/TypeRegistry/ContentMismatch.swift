/// A file whose name (or the sender's declared type) says it is a format with a fixed signature
/// (``ContentSignature``) while its content does not carry that signature: it is not what it says,
/// and it is never handed to the application that imports the named type.
public struct ContentMismatch: Hashable, Sendable, CustomStringConvertible {
    /// What made the claim.
    public enum Claim: Hashable, Sendable {
        /// The file name's extension (without the dot).
        case fileExtension(String)
        /// The sender's declared type.
        case declaredType
    }

    /// The type the name or the declared type gives the file.
    public let claimedType: TypeIdentifier
    /// Who claimed it.
    public let claim: Claim
    /// The signature that type's files carry and this one lacks.
    public let expected: ContentSignature
    /// The listed format the content is instead, when it is one.
    public let found: ContentSignature?
    /// What the content is otherwise, in a few words (`text`), when the caller could tell.
    public let foundDescription: String?

    /// Creates a verdict.
    public init(
        claimedType: TypeIdentifier, claim: Claim, expected: ContentSignature, found: ContentSignature?,
        foundDescription: String? = nil
    ) {
        self.claimedType = claimedType
        self.claim = claim
        self.expected = expected
        self.found = found
        self.foundDescription = foundDescription
    }

    /// The verdict on a file whose type is `claimedType` (from its name `fileName`, or from the
    /// sender's declared type) and whose first bytes are `content`: nil when the type has no
    /// signature on the list or the content carries it; otherwise the mismatch, naming what the
    /// content is when it is a listed format.
    /// - Parameters:
    ///   - claimedType: the type the file was given.
    ///   - fileName: its name (the last component is used).
    ///   - byDeclaredType: whether the type came from the sender's declaration, not the name.
    ///   - content: its leading bytes (at least the first 1024 to find a PDF's header); an empty
    ///     file carries no signature, but is never judged (it is text, whatever its name).
    ///   - otherwise: what the content is when no listed signature matches (`text`), if known.
    public static func check(
        claimedType: TypeIdentifier, fileName: String, byDeclaredType: Bool = false, content: [UInt8],
        otherwise: String? = nil
    ) -> ContentMismatch? {
        guard !content.isEmpty, let expected = ContentSignature.expected(for: claimedType),
            !expected.isCarried(by: content)
        else { return nil }
        let found = ContentSignature.recognise(content)
        let claim: Claim
        if !byDeclaredType, let ext = TypeRegistry.lastExtension(of: TypeRegistry.lastPathComponent(fileName)) {
            claim = .fileExtension(ext)
        } else {
            claim = .declaredType
        }
        return ContentMismatch(
            claimedType: claimedType, claim: claim, expected: expected, found: found,
            foundDescription: found == nil ? otherwise : nil)
    }

    /// `named .jpg but its content is a PDF document`; `named .png but its content is text, not a
    /// PNG image`; `declared public.jpeg by the sender but its content is not a JPEG image (it has
    /// no JPEG signature)`.
    public var description: String {
        let claimed =
            switch claim {
            case .fileExtension(let ext): "named .\(ext)"
            case .declaredType: "declared \(claimedType) by the sender"
            }
        if let found { return "\(claimed) but its content is \(found.phrase)" }
        if let foundDescription { return "\(claimed) but its content is \(foundDescription), not \(expected.phrase)" }
        return "\(claimed) but its content is not \(expected.phrase) (it has no \(expected.format) signature)"
    }
}
