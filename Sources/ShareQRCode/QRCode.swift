internal import CShareQREncode
import Glibc

/// A QR code (ISO/IEC 18004) of a text, made by libqrencode: a square of dark and light modules,
/// and its drawing for a terminal with Unicode half blocks.
public struct QRCode: Sendable, Equatable {
    /// Modules on each side (21 for version 1, 4 more for each version after).
    public let size: Int
    /// Whether each module is dark, row after row.
    public let modules: [Bool]

    /// The modules a scanner wants as light margin around a code (ISO/IEC 18004: four).
    public static let quietZone = 4

    /// The QR code of `text`'s UTF-8 bytes (byte mode, error correction level M: a code photographed
    /// off a screen still reads with 15% of it wrong), in the smallest version that holds it.
    public init(encoding text: String) throws(QRCodeError) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw QRCodeError("an empty text has no QR code") }
        guard let code = bytes.withUnsafeBufferPointer({
            qrencode.QRcode_encodeData(Int32($0.count), $0.baseAddress, 0, QR_ECLEVEL_M)
        }) else {
            let reason = errno == ERANGE ? "it is too long for a QR code" : String(cString: strerror(errno))
            throw QRCodeError("cannot make a QR code of \(bytes.count) bytes: \(reason)")
        }
        defer { qrencode.QRcode_free(code) }
        let width = Int(code.pointee.width)
        size = width
        // libqrencode: bit 0 of each byte is the module's colour (1: dark); the others say what it is.
        modules = (0..<width * width).map { code.pointee.data[$0] & 1 == 1 }
    }

    /// Whether the module at `row`, `column` is dark; outside the code (the quiet zone) it is light.
    public func isDark(row: Int, column: Int) -> Bool {
        guard (0..<size).contains(row), (0..<size).contains(column) else { return false }
        return modules[row * size + column]
    }

    /// The code as lines for a terminal: each character is one module wide and two high (`▀`, `▄`,
    /// `█` draw the light ones, a space the dark ones), with `quietZone` light modules around it.
    /// Each line is wrapped in ANSI colours (white on black) so that it reads on light and dark
    /// terminals alike.
    public func terminalLines(quietZone: Int = QRCode.quietZone) -> [String] {
        let span = -quietZone..<(size + quietZone)
        var lines: [String] = []
        var row = -quietZone
        while row < size + quietZone {
            var line = "\u{1B}[37;40m"
            for column in span {
                let top = !isDark(row: row, column: column)
                // An odd count of rows ends with a light half: the quiet zone's.
                let bottom = row + 1 < size + quietZone ? !isDark(row: row + 1, column: column) : false
                switch (top, bottom) {
                case (true, true): line += "█"
                case (true, false): line += "▀"
                case (false, true): line += "▄"
                case (false, false): line += " "
                }
            }
            lines.append(line + "\u{1B}[0m")
            row += 2
        }
        return lines
    }
}
