/// A format whose files always begin with a fixed signature ("strong magic"): a file of that type
/// that lacks it is not what its name says (docs/TYPES.md §6).
///
/// The list is short on purpose: formats whose readers reject a file without the signature, so
/// that its absence is certain evidence, and that are common in transfers.
public struct ContentSignature: Hashable, Sendable, CustomStringConvertible {
    /// The type whose files carry the signature.
    public let type: TypeIdentifier
    /// The format's short name: `JPEG`, `PDF`.
    public let format: String
    /// A phrase for messages: `a JPEG image`, `a PDF document`.
    public let phrase: String
    /// How the signature is recognised.
    let pattern: Pattern

    /// Where the signature bytes must be.
    enum Pattern: Hashable, Sendable {
        /// The file begins with one of these byte strings.
        case prefix([[UInt8]])
        /// The bytes occur at the start of one of the first `within` bytes.
        case near([UInt8], within: Int)
        /// `RIFF`, four bytes of length, then the form type.
        case riff([UInt8])
    }

    /// The phrase.
    public var description: String { phrase }

    /// Whether `bytes` (a file's leading bytes) carry the signature.
    public func isCarried(by bytes: [UInt8]) -> Bool {
        switch pattern {
        case .prefix(let options):
            return options.contains { bytes.starts(with: $0) }
        case .near(let signature, let within):
            let window = bytes.prefix(within + signature.count - 1)
            guard window.count >= signature.count else { return false }
            return window.indices.dropLast(signature.count - 1).contains { start in
                window[start..<(start + signature.count)].elementsEqual(signature)
            }
        case .riff(let form):
            return bytes.count >= 12 && bytes.starts(with: Array("RIFF".utf8)) && bytes[8..<12].elementsEqual(form)
        }
    }

    /// JPEG: `FF D8 FF` (a start-of-image marker followed by the next marker).
    public static let jpeg = ContentSignature(
        type: "public.jpeg", format: "JPEG", phrase: "a JPEG image", pattern: .prefix([[0xFF, 0xD8, 0xFF]]))
    /// PNG: its eight-byte signature `89 50 4E 47 0D 0A 1A 0A`.
    public static let png = ContentSignature(
        type: "public.png", format: "PNG", phrase: "a PNG image",
        pattern: .prefix([[0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]]))
    /// GIF: `GIF87a` or `GIF89a`.
    public static let gif = ContentSignature(
        type: "com.compuserve.gif", format: "GIF", phrase: "a GIF image",
        pattern: .prefix([Array("GIF87a".utf8), Array("GIF89a".utf8)]))
    /// WebP: `RIFF`, a length, `WEBP`.
    public static let webp = ContentSignature(
        type: "org.webmproject.webp", format: "WebP", phrase: "a WebP image", pattern: .riff(Array("WEBP".utf8)))
    /// ZIP: a local file header `PK 03 04`, the end record `PK 05 06` of an empty archive, or the
    /// marker `PK 07 08` that begins a split archive's first part.
    public static let zip = ContentSignature(
        type: "public.zip-archive", format: "ZIP", phrase: "a ZIP archive",
        pattern: .prefix([[0x50, 0x4B, 0x03, 0x04], [0x50, 0x4B, 0x05, 0x06], [0x50, 0x4B, 0x07, 0x08]]))
    /// PDF: `%PDF-` within the first 1024 bytes (where PDF readers look for it).
    public static let pdf = ContentSignature(
        type: "com.adobe.pdf", format: "PDF", phrase: "a PDF document", pattern: .near(Array("%PDF-".utf8), within: 1024))

    /// Every signature, those anchored at the first byte before PDF's, which may come later: a
    /// file that begins as a ZIP archive is named a ZIP archive even when `%PDF-` follows.
    public static let all: [ContentSignature] = [jpeg, png, gif, webp, zip, pdf]

    /// The signature files of `type` must carry, or nil when the type has none on the list
    /// (only the listed types themselves: a type derived from one, such as a `.docx` from ZIP,
    /// is not checked).
    public static func expected(for type: TypeIdentifier) -> ContentSignature? {
        all.first { $0.type == type }
    }

    /// The listed format `bytes` begin as, or nil.
    public static func recognise(_ bytes: [UInt8]) -> ContentSignature? {
        all.first { $0.isCarried(by: bytes) }
    }
}
