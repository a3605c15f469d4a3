/// A type made up for a tag nobody declared: an unknown filename extension or MIME type.
///
/// Its identifier (`dyn.a…`) encodes the tag, so it decodes back to the same tag class and
/// value. The encoding is the one macOS uses: the text `?0=<parent>:<class>=<value>`, with
/// well-known identifiers abbreviated to one character (`0` conforms-to, `1` filename extension,
/// `3` MIME type, `6` `public.data`, `E` `public.directory`, …), written in base 32 with the
/// alphabet `abcdefghkmnpqrstuvwxyz0123456789`, most significant bit first, after `dyn.a`.
/// An unknown extension `rar` is therefore `dyn.ah62d4rv4ge81e2pw`, as on a Mac. Values holding
/// `:`, `=` or `\` are escaped with a backslash (an extension of ours; macOS has no such tags).
///
/// A dynamic type conforms to `public.data`, or to `public.directory` for a folder. Dynamic
/// identifiers describe a local guess: never store them or send them to a peer.
public struct DynamicType: Hashable, Sendable {
    /// The class of the encoded tag.
    public let tagClass: TagClass
    /// The encoded tag, lower-cased (an extension without its dot, or a MIME type without parameters).
    public let tag: String
    /// The one type this dynamic type conforms to: `public.data` or `public.directory`.
    public let conformsTo: TypeIdentifier

    /// Creates a dynamic type for a tag.
    /// - Parameters:
    ///   - tagClass: the tag's class, for example ``TagClass/filenameExtension``.
    ///   - tag: the tag; it is lower-cased and trimmed, and a leading dot of an extension is dropped.
    ///   - conformsTo: `public.data` for files, `public.directory` for folders.
    public init(tagClass: TagClass, tag: String, conformsTo: TypeIdentifier = .data) {
        var value = tag.trimmingTypeWhitespace().lowercased()
        if tagClass == .filenameExtension {
            while value.hasPrefix(".") { value.removeFirst() }
        }
        self.tagClass = tagClass
        self.tag = value
        self.conformsTo = conformsTo
    }

    /// Decodes a `dyn.` identifier; `nil` when it is not one or does not decode to one tag.
    /// - Parameter identifier: for example `dyn.ah62d4rv4ge81e2pw`.
    public init?(identifier: TypeIdentifier) {
        let text = identifier.normalized
        guard text.hasPrefix("dyn.a"), let decoded = Self.base32Decode(text.dropFirst(5)) else { return nil }
        var fields = Self.splitUnescaped(decoded.hasPrefix("?") ? String(decoded.dropFirst()) : decoded, on: ":")
        var parent: TypeIdentifier = .data
        var tagPair: (TagClass, String)?
        while !fields.isEmpty {
            let field = fields.removeFirst()
            let parts = Self.splitUnescaped(field, on: "=", maxSplits: 1)
            guard parts.count == 2 else { return nil }
            let key = Self.expand(parts[0])
            let value = Self.unescape(parts[1])
            if key == "uttypeconformsto" {
                parent = TypeIdentifier(Self.expand(value))
            } else if tagPair == nil {
                tagPair = (TagClass(rawValue: key), value)
            }
        }
        guard let (tagClass, tag) = tagPair else { return nil }
        self.init(tagClass: tagClass, tag: tag, conformsTo: parent)
    }

    /// The `dyn.` identifier encoding this tag.
    public var identifier: TypeIdentifier {
        let text =
            "?0=\(Self.abbreviate(conformsTo.normalized)):\(Self.abbreviate(tagClass.rawValue))=\(Self.escape(tag))"
        return TypeIdentifier("dyn.a" + Self.base32Encode(Array(text.utf8)))
    }

    /// What a person can make of it: `unknown type (.qqq files)`, `unknown type (application/x-foo)`,
    /// `unknown folder type (.bundle folders)`.
    public var readableDescription: String {
        let what = conformsTo.normalized == TypeIdentifier.directory.normalized ? "folders" : "files"
        let kind = what == "folders" ? "unknown folder type" : "unknown type"
        switch tagClass {
        case .filenameExtension: return "\(kind) (.\(tag) \(what))"
        case .mimeType: return "\(kind) (\(tag))"
        default: return "\(kind) (\(tagClass.rawValue) \(tag))"
        }
    }

    /// ``readableDescription`` for a `dyn.` identifier, else nil.
    public static func readableDescription(of identifier: TypeIdentifier) -> String? {
        DynamicType(identifier: identifier)?.readableDescription
    }

    // MARK: - Encoding

    private static let alphabet = Array("abcdefghkmnpqrstuvwxyz0123456789".utf8)

    /// The one-character abbreviations macOS uses in dynamic identifiers.
    private static let abbreviations: [(String, String)] = [
        ("0", "uttypeconformsto"), ("1", "public.filename-extension"), ("2", "com.apple.ostype"),
        ("3", "public.mime-type"), ("4", "com.apple.nspboard-type"), ("5", "public.url-scheme"),
        ("6", "public.data"), ("7", "public.text"), ("8", "public.plain-text"),
        ("9", "public.utf16-plain-text"), ("a", "com.apple.traditional-mac-plain-text"),
        ("b", "public.image"), ("c", "public.video"), ("d", "public.audio"),
        ("e", "public.directory"), ("f", "public.folder"),
    ]

    private static func abbreviate(_ value: String) -> String {
        for (code, long) in abbreviations where long == value { return code.uppercased() }
        return escape(value)
    }

    private static func expand(_ value: String) -> String {
        let lower = value.lowercased()
        if lower.count == 1, let match = abbreviations.first(where: { $0.0 == lower }) { return match.1 }
        return lower
    }

    private static func escape(_ value: String) -> String {
        var out = ""
        for character in value {
            if character == ":" || character == "=" || character == "\\" { out.append("\\") }
            out.append(character)
        }
        return out
    }

    private static func unescape(_ value: String) -> String {
        var out = ""
        var escaping = false
        for character in value {
            if escaping {
                out.append(character)
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                out.append(character)
            }
        }
        return out
    }

    private static func splitUnescaped(_ text: String, on separator: Character, maxSplits: Int = .max) -> [String] {
        var parts: [String] = []
        var current = ""
        var escaping = false
        for character in text {
            if escaping {
                current.append(character)
                escaping = false
            } else if character == "\\" {
                current.append(character)
                escaping = true
            } else if character == separator && parts.count < maxSplits {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current)
        return parts
    }

    private static func base32Encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in bytes {
            accumulator = (accumulator << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[Int((accumulator >> UInt32(bits - 5)) & 31)])
                bits -= 5
            }
            accumulator &= (1 << UInt32(bits)) - 1
        }
        if bits > 0 {
            out.append(alphabet[Int((accumulator << UInt32(5 - bits)) & 31)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func base32Decode(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var accumulator: UInt32 = 0
        var bits = 0
        for unit in text.utf8 {
            guard let value = alphabet.firstIndex(of: unit) else { return nil }
            accumulator = (accumulator << 5) | UInt32(value)
            bits += 5
            if bits >= 8 {
                bytes.append(UInt8((accumulator >> UInt32(bits - 8)) & 0xFF))
                bits -= 8
            }
            accumulator &= (1 << UInt32(bits)) - 1
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
