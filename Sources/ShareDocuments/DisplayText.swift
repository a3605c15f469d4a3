/// Makes text that came from a peer safe to print on a terminal.
///
/// Names and paths from the network may carry terminal escape sequences or bidirectional-override
/// characters that would hide or reorder what the user sees (croc GHSA-364c-vvqx-446c,
/// magic-wormhole #476). Every such string is escaped before it is shown.
public enum DisplayText {
    /// Returns `text` with every control character (C0, DEL, C1), bidirectional control and other
    /// invisible formatting character replaced by a visible `\u{XXXX}` escape. Backslashes are
    /// left alone, so an escaped name stays readable.
    public static func escape(_ text: some StringProtocol) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
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
        case 0x061C, 0x200B...0x200F, 0x2028...0x202E, 0x2060...0x2069, 0xFEFF: return true  // bidi and invisible
        case 0xFFF9...0xFFFB: return true  // interlinear annotation
        default: return false
        }
    }
}
