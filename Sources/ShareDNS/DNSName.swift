/// A domain name as DNS carries it: a list of labels, each up to 63 bytes of any value.
///
/// DNS-SD instance names are free text ("Ann's Desk 2.0", "Café"): one label that may hold
/// spaces, dots and UTF-8. Keeping labels as bytes means such a name never has to be escaped to
/// be sent; ``presentation`` escapes it only for display and zone files (RFC 1035 §5.1).
/// Comparison ignores ASCII case, as DNS does.
public struct DNSName: Sendable, Hashable, CustomStringConvertible {
    /// The longest label.
    public static let maxLabelLength = 63
    /// The longest name in wire format, length bytes and the root's zero included.
    public static let maxWireLength = 255

    /// The labels, most specific first, without the root.
    public let labels: [[UInt8]]

    /// The root name.
    public static let root = DNSName(checked: [])

    /// A name from labels.
    /// - Throws: ``DNSNameError`` for an empty or over-long label, or a name over 255 bytes.
    public init(labels: [[UInt8]]) throws(DNSNameError) {
        for label in labels {
            guard !label.isEmpty else { throw .emptyLabel }
            guard label.count <= Self.maxLabelLength else { throw .labelTooLong(label.count) }
        }
        let length = labels.reduce(1) { $0 + 1 + $1.count }
        guard length <= Self.maxWireLength else { throw .nameTooLong(length) }
        self.labels = labels
    }

    private init(checked labels: [[UInt8]]) {
        self.labels = labels
    }

    /// Parses presentation format: labels separated by dots, `\.` and `\\` for a literal
    /// character, `\DDD` for a byte in decimal. A trailing dot is allowed; "." and "" are the root.
    /// - Throws: ``DNSNameError``.
    public init(_ text: String) throws(DNSNameError) {
        var labels: [[UInt8]] = []
        var current: [UInt8] = []
        var bytes = Array(text.utf8)[...]
        if bytes == [UInt8(ascii: ".")] { bytes = [] }
        var sawSomething = false
        while let byte = bytes.first {
            bytes = bytes.dropFirst()
            sawSomething = true
            switch byte {
            case UInt8(ascii: "."):
                guard !current.isEmpty else { throw .emptyLabel }
                labels.append(current)
                current = []
                sawSomething = false
            case UInt8(ascii: "\\"):
                guard let next = bytes.first else { throw .badEscape }
                if Self.isDigit(next) {
                    let digits = Array(bytes.prefix(3))
                    guard digits.count == 3, digits.allSatisfy(Self.isDigit) else { throw .badEscape }
                    let value = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
                    guard value <= 255 else { throw .badEscape }
                    current.append(UInt8(value))
                    bytes = bytes.dropFirst(3)
                } else {
                    current.append(next)
                    bytes = bytes.dropFirst()
                }
            default:
                current.append(byte)
            }
        }
        if sawSomething { labels.append(current) }
        try self.init(labels: labels)
    }

    /// A name of one free-text label (e.g. a DNS-SD instance name) in front of `parent`.
    /// - Throws: ``DNSNameError`` when the label is empty or over 63 bytes, or the name too long.
    public init(label: String, in parent: DNSName) throws(DNSNameError) {
        try self.init(labels: [Array(label.utf8)] + parent.labels)
    }

    /// This name below `parent` (`parent` must not be the root for a meaningful result).
    public func appending(_ parent: DNSName) throws(DNSNameError) -> DNSName {
        try DNSName(labels: labels + parent.labels)
    }

    /// The name without its first label (the root stays the root).
    public var parent: DNSName { DNSName(checked: Array(labels.dropFirst())) }

    /// The first label as text (invalid UTF-8 replaced), e.g. the instance name of a DNS-SD service.
    public var firstLabelText: String? { labels.first.map { String(decoding: $0, as: UTF8.self) } }

    /// Whether this name equals `other` or lies below it.
    public func isSubdomain(of other: DNSName) -> Bool {
        guard labels.count >= other.labels.count else { return false }
        return DNSName(checked: Array(labels.suffix(other.labels.count))) == other
    }

    /// The name in wire format (uncompressed).
    public var wire: [UInt8] {
        var bytes: [UInt8] = []
        for label in labels {
            bytes.append(UInt8(label.count))
            bytes += label
        }
        bytes.append(0)
        return bytes
    }

    /// Presentation format without the trailing dot ("office.example", "Ann's\032Desk.office.example";
    /// "." for the root): dots, backslashes and quotes inside labels are escaped with `\`, bytes
    /// outside printable ASCII (including UTF-8) as `\DDD`.
    public var presentation: String {
        guard !labels.isEmpty else { return "." }
        return labels.map(Self.escape).joined(separator: ".")
    }

    /// Presentation format with the trailing dot, as zone files and tools want it.
    public var absolute: String { labels.isEmpty ? "." : presentation + "." }

    /// The name for people: labels as UTF-8 text joined by dots, without escapes.
    public var description: String {
        labels.isEmpty ? "." : labels.map { String(decoding: $0, as: UTF8.self) }.joined(separator: ".")
    }

    public static func == (lhs: DNSName, rhs: DNSName) -> Bool {
        lhs.labels.count == rhs.labels.count
            && zip(lhs.labels, rhs.labels).allSatisfy { $0.count == $1.count && zip($0, $1).allSatisfy { lower($0) == lower($1) } }
    }

    public func hash(into hasher: inout Hasher) {
        for label in labels {
            hasher.combine(label.count)
            for byte in label { hasher.combine(Self.lower(byte)) }
        }
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private static func escape(_ label: [UInt8]) -> String {
        var text = ""
        for byte in label {
            switch byte {
            case UInt8(ascii: "."), UInt8(ascii: "\\"), UInt8(ascii: "\""), UInt8(ascii: ";"), UInt8(ascii: "("),
                UInt8(ascii: ")"), UInt8(ascii: "@"), UInt8(ascii: "$"):
                text += "\\" + String(UnicodeScalar(byte))
            case 0x21...0x7E:
                text.unicodeScalars.append(UnicodeScalar(byte))
            default:
                let digits = String(byte)
                text += "\\" + String(repeating: "0", count: 3 - digits.count) + digits
            }
        }
        return text
    }
}

/// Why text or labels do not make a domain name.
public enum DNSNameError: Error, Sendable, Hashable, CustomStringConvertible {
    case emptyLabel
    case labelTooLong(Int)
    case nameTooLong(Int)
    case badEscape

    public var description: String {
        switch self {
        case .emptyLabel: "it has an empty label (two dots in a row, or a leading dot)"
        case .labelTooLong(let length): "a label is \(length) bytes, more than \(DNSName.maxLabelLength)"
        case .nameTooLong(let length): "it is \(length) bytes in wire format, more than \(DNSName.maxWireLength)"
        case .badEscape: "it has a backslash that is not followed by a character or three digits up to 255"
        }
    }
}
