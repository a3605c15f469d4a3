/// A Uniform Type Identifier such as `public.jpeg` or `com.example.scarybugs.sbz`.
///
/// Identifiers are reverse-DNS strings. They compare and hash case-insensitively, so
/// `Public.JPEG` and `public.jpeg` are the same type; ``rawValue`` keeps the spelling it was
/// written with, minus surrounding whitespace, so the registry can show a type as declared.
///
/// An identifier that nobody declared still decodes and round-trips: the registry answers
/// with a dynamic type for it (``isDynamic``) instead of failing.
public struct TypeIdentifier: RawRepresentable, Hashable, Comparable, Sendable, Codable,
    ExpressibleByStringLiteral, CustomStringConvertible
{
    /// The identifier as written, with surrounding whitespace removed.
    public let rawValue: String

    /// The lower-cased form used for comparison, hashing and lookups.
    public let normalized: String

    /// Creates an identifier from its text; surrounding whitespace is removed.
    /// - Parameter rawValue: the identifier, for example `public.png`.
    public init(rawValue: String) {
        let trimmed = rawValue.trimmingTypeWhitespace()
        self.rawValue = trimmed
        self.normalized = trimmed.lowercasedIfNeeded()
    }

    /// Creates an identifier from its text; surrounding whitespace is removed.
    /// - Parameter text: the identifier, for example `public.png`.
    public init(_ text: String) {
        self.init(rawValue: text)
    }

    /// Creates an identifier from a string literal.
    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    /// Decodes an identifier from a single JSON string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.init(rawValue: try container.decode(String.self))
    }

    /// Encodes the identifier as a single string, spelled as declared.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Two identifiers are equal when they are equal ignoring case.
    public static func == (lhs: TypeIdentifier, rhs: TypeIdentifier) -> Bool {
        lhs.normalized == rhs.normalized
    }

    /// Hashes the lower-cased form, so hashing agrees with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(normalized)
    }

    /// Orders identifiers by their lower-cased form.
    public static func < (lhs: TypeIdentifier, rhs: TypeIdentifier) -> Bool {
        lhs.normalized < rhs.normalized
    }

    /// The identifier as written.
    public var description: String { rawValue }

    /// Whether this is a dynamic identifier (`dyn.…`), made up for a tag nobody declared.
    public var isDynamic: Bool { normalized.hasPrefix("dyn.") }

    /// Whether the identifier is in Apple's reserved `public.` domain.
    public var isPublic: Bool { normalized.hasPrefix("public.") }

    /// Whether the identifier is in a domain only the system may declare (`public.`, `com.apple.`, `dyn.`).
    public var isReservedForSystem: Bool {
        isPublic || isDynamic || normalized.hasPrefix("com.apple.")
    }

    /// Whether the text is a usable identifier, by the rules LaunchServices applies to the types apps
    /// declare: dot-separated labels, none empty, of printable characters other than whitespace, the
    /// path separators `/` and `:` (which Apple prohibits in identifiers) and `*` (the wildcard of
    /// `LSItemContentTypes`). Apple recommends ASCII letters, digits, `-` and `.` plus anything above
    /// U+007F (see ``isRecommendedForm``), but apps ship identifiers beyond that set, such as MacVim's
    /// `org.vim.pch++-file` or `com.example.my_type`, and macOS registers them.
    public var isWellFormed: Bool {
        guard !rawValue.isEmpty, !rawValue.hasPrefix("."), !rawValue.hasSuffix("."), !rawValue.contains("..") else {
            return false
        }
        for scalar in rawValue.unicodeScalars {
            switch scalar.value {
            case 0x21...0x7E:
                if scalar == "/" || scalar == ":" || scalar == "*" { return false }
            case 0x80...:
                if scalar.properties.isWhitespace || scalar.properties.generalCategory == .control { return false }
            default:
                return false
            }
        }
        return true
    }

    /// Whether the identifier uses only the characters Apple recommends: ASCII letters, digits, `-`
    /// and `.` and characters above U+007F, in non-empty labels (the rule for `CFBundleIdentifier`).
    public var isRecommendedForm: Bool {
        guard isWellFormed else { return false }
        return rawValue.unicodeScalars.allSatisfy { scalar in
            switch scalar.value {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x80...: true
            default: false
            }
        }
    }
}

extension TypeIdentifier {
    /// `public.item`: the root of the physical hierarchy; every file, folder and link.
    public static let item: TypeIdentifier = "public.item"
    /// `public.content`: the root of the functional hierarchy (documents a user views or edits).
    public static let content: TypeIdentifier = "public.content"
    /// `public.composite-content`: mixed content such as PDF or word-processing documents.
    public static let compositeContent: TypeIdentifier = "public.composite-content"
    /// `public.data`: any byte stream (a regular file).
    public static let data: TypeIdentifier = "public.data"
    /// `public.directory`: any directory, including folders and packages.
    public static let directory: TypeIdentifier = "public.directory"
    /// `public.folder`: a directory the user browses into.
    public static let folder: TypeIdentifier = "public.folder"
    /// `com.apple.package`: a directory shown and transferred as one document.
    public static let package: TypeIdentifier = "com.apple.package"
    /// `com.apple.bundle`: a directory with a bundle's internal structure.
    public static let bundle: TypeIdentifier = "com.apple.bundle"
    /// `public.symlink`: a symbolic link.
    public static let symbolicLink: TypeIdentifier = "public.symlink"
    /// `public.executable`: anything that can be run.
    public static let executable: TypeIdentifier = "public.executable"
    /// `public.unix-executable`: a native program (ELF on Linux).
    public static let unixExecutable: TypeIdentifier = "public.unix-executable"
    /// `public.text`: any text.
    public static let text: TypeIdentifier = "public.text"
    /// `public.plain-text`: text with no markup.
    public static let plainText: TypeIdentifier = "public.plain-text"
    /// `public.source-code`: program source text.
    public static let sourceCode: TypeIdentifier = "public.source-code"
    /// `public.script`: a script, which an interpreter can run.
    public static let script: TypeIdentifier = "public.script"
    /// `public.image`: any image.
    public static let image: TypeIdentifier = "public.image"
    /// `public.audio`: any audio.
    public static let audio: TypeIdentifier = "public.audio"
    /// `public.movie`: any movie (video, possibly with sound).
    public static let movie: TypeIdentifier = "public.movie"
    /// `public.audiovisual-content`: audio and video.
    public static let audiovisualContent: TypeIdentifier = "public.audiovisual-content"
    /// `public.archive`: any archive.
    public static let archive: TypeIdentifier = "public.archive"
    /// `public.font`: any font.
    public static let font: TypeIdentifier = "public.font"
    /// `com.adobe.pdf`: a PDF document.
    public static let pdf: TypeIdentifier = "com.adobe.pdf"
}

extension String {
    /// The string without surrounding spaces, tabs and line breaks (including non-breaking spaces).
    func trimmingTypeWhitespace() -> String {
        // Fast path: printable ASCII at both ends (nearly every identifier, MIME type and extension).
        if let first = utf8.first, let last = utf8.last, (0x21...0x7E).contains(first), (0x21...0x7E).contains(last) {
            return self
        }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        guard let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        if first == scalars.startIndex && last == scalars.index(before: scalars.endIndex) { return self }
        return String(scalars[first...last])
    }

    /// The string lower-cased, without a new string when it has no upper-case ASCII letter and is all ASCII.
    func lowercasedIfNeeded() -> String {
        for byte in utf8 where (0x41...0x5A).contains(byte) || byte >= 0x80 { return lowercased() }
        return self
    }
}
