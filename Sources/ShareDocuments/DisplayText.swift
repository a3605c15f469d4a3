/// Makes text that came from a peer safe to print on a terminal.
///
/// Names and paths from the network may carry terminal escape sequences, bidirectional controls
/// or invisible characters that would hide or reorder what the user sees (croc GHSA-364c-vvqx-446c,
/// magic-wormhole #476), and spaces around a name make `desk ` look like `desk`. Every such string
/// is escaped before it is shown.
public enum DisplayText {
    /// Returns `text` with every control character (C0, DEL, C1), every bidirectional control,
    /// every default-ignorable code point (invisible: soft hyphen, zero-width and filler
    /// characters, variation selectors, tag characters) and every space at its start or end
    /// replaced by a visible `\u{XXXX}` escape. Backslashes are left alone, so an escaped name stays
    /// readable.
    public static func escape(_ text: some StringProtocol) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        let scalars = Array(text.unicodeScalars)
        let first = scalars.firstIndex { !$0.properties.isWhitespace } ?? scalars.count
        let last = scalars.lastIndex { !$0.properties.isWhitespace } ?? -1
        for (index, scalar) in scalars.enumerated() {
            let edgeSpace = (index < first || index > last) && scalar.properties.isWhitespace
            if isUnsafe(scalar) || edgeSpace {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Whether `scalar` must not reach a terminal raw.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true  // C0, DEL, C1 (ESC, CSI, OSC ...)
        case 0x2028, 0x2029: return true  // line and paragraph separators
        case 0xFFF9...0xFFFB: return true  // interlinear annotation
        default:
            let properties = scalar.properties
            return properties.isBidiControl || properties.isDefaultIgnorableCodePoint
        }
    }

    /// `number` with its thousands grouped by commas (`1,000,000`), as limits are shown.
    public static func grouped(_ number: Int) -> String {
        var digits = Array(String(number.magnitude))
        var index = digits.count - 3
        while index > 0 {
            digits.insert(",", at: index)
            index -= 3
        }
        return (number < 0 ? "-" : "") + String(digits)
    }
}
