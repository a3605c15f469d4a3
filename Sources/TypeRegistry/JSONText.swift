/// A JSON value whose object keys keep the order they were given in.
///
/// `JSONEncoder` does not promise a key order, and `.sortedKeys` sorts alphabetically; output
/// whose shape is documented key by key (`share types inspect --json`) is written with this.
public indirect enum JSONText: Hashable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer.
    case int(Int)
    /// A number with a fraction, written with three decimals (non-finite values as `null`).
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONText])
    /// An object, keys in this order.
    case object([(String, JSONText)])

    /// A string, or `null` for `nil`.
    public static func optional(_ value: String?) -> JSONText {
        value.map { .string($0) } ?? .null
    }

    /// An array of strings.
    public static func strings(_ values: [String]) -> JSONText {
        .array(values.map { .string($0) })
    }

    /// The JSON text.
    /// - Parameter prettyPrinted: two-space indentation, one member per line, `"key": value`;
    ///   otherwise no whitespace at all. Neither ends with a newline. `/` is not escaped.
    public func rendered(prettyPrinted: Bool = true) -> String {
        var out = ""
        write(into: &out, indent: 0, pretty: prettyPrinted)
        return out
    }

    private func write(into out: inout String, indent: Int, pretty: Bool) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .double(let value): out += value.isFinite ? Self.threeDecimals(value) : "null"
        case .string(let value): Self.appendString(value, to: &out)
        case .array(let values):
            if values.isEmpty {
                out += "[]"
                return
            }
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                if pretty { Self.newline(&out, indent + 1) }
                value.write(into: &out, indent: indent + 1, pretty: pretty)
            }
            if pretty { Self.newline(&out, indent) }
            out += "]"
        case .object(let members):
            if members.isEmpty {
                out += "{}"
                return
            }
            out += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out += "," }
                if pretty { Self.newline(&out, indent + 1) }
                Self.appendString(key, to: &out)
                out += pretty ? ": " : ":"
                value.write(into: &out, indent: indent + 1, pretty: pretty)
            }
            if pretty { Self.newline(&out, indent) }
            out += "}"
        }
    }

    /// `12.345`, without Foundation's locale-dependent formatting.
    private static func threeDecimals(_ value: Double) -> String {
        let thousandths = Int64((abs(value) * 1000).rounded())
        let fraction = String(thousandths % 1000)
        return (value < 0 && thousandths > 0 ? "-" : "") + "\(thousandths / 1000)."
            + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    private static func newline(_ out: inout String, _ indent: Int) {
        out += "\n"
        out += String(repeating: "  ", count: indent)
    }

    /// Appends `value` to `out` as a JSON string, escaped as ``rendered(prettyPrinted:)`` escapes
    /// it (also for callers that write many small objects into one piece of text).
    public static func appendString(_ value: String, to out: inout String) {
        out += "\""
        // Most strings (paths, hex digests) need no escaping: copy them whole.
        if value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            out += value
            out += "\""
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                // Controls (C0, DEL, C1) and line separators are escaped, so JSON printed on a
                // terminal cannot carry an escape sequence.
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028
                    || scalar.value == 0x2029
                {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    /// Members are compared in order.
    public static func == (lhs: JSONText, rhs: JSONText) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    /// Hashes the rendered text.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rendered(prettyPrinted: false))
    }
}
