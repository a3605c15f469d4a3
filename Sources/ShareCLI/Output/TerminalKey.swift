/// A key pressed on a terminal in raw mode, decoded from the bytes it sends.
enum TerminalKey: Equatable {
    case up
    case down
    case space
    case enter
    case backspace
    case escape
    /// Ctrl-C (in raw mode it is a byte, not a signal).
    case interrupt
    /// Ctrl-U: clear the filter.
    case clearLine
    case character(Character)
    /// Anything else (other escape sequences, control bytes).
    case other

    /// Decodes the keys in `bytes` (one read may hold several keys, or a key split from its
    /// sequence: a lone ESC is the Escape key).
    static func decode(_ bytes: [UInt8]) -> [TerminalKey] {
        var keys: [TerminalKey] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case 0x1B:
                // CSI (ESC [) or SS3 (ESC O) sequences: arrows are A and B; others end at a letter or ~.
                if index + 1 < bytes.count,
                    bytes[index + 1] == UInt8(ascii: "[") || bytes[index + 1] == UInt8(ascii: "O")
                {
                    var end = index + 2
                    while end < bytes.count, !(0x40...0x7E).contains(bytes[end]) { end += 1 }
                    let final = end < bytes.count ? bytes[end] : 0
                    keys.append(final == UInt8(ascii: "A") ? .up : final == UInt8(ascii: "B") ? .down : .other)
                    index = end + 1
                    continue
                }
                keys.append(.escape)
            case 0x03: keys.append(.interrupt)
            case 0x0D, 0x0A: keys.append(.enter)
            case 0x7F, 0x08: keys.append(.backspace)
            case 0x15: keys.append(.clearLine)
            case 0x20: keys.append(.space)
            case 0x0E: keys.append(.down)  // Ctrl-N
            case 0x10: keys.append(.up)  // Ctrl-P
            case 0x21...0x7E: keys.append(.character(Character(Unicode.Scalar(byte))))
            case 0xC0...0xF7:
                // One UTF-8 character.
                let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
                let end = min(bytes.count, index + length)
                if let text = String(validating: bytes[index..<end], as: UTF8.self), let character = text.first {
                    keys.append(.character(character))
                } else {
                    keys.append(.other)
                }
                index = end
                continue
            default: keys.append(.other)
            }
            index += 1
        }
        return keys
    }
}
