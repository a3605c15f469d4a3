import Foundation
import ShareQRCode
import Testing

/// The QR code `share send --link` draws: libqrencode's modules, and their drawing with half blocks.
/// (No decoder is at hand, so the tests check the structure every scanner looks for.)
@Suite struct QRCodeTests {
    let address = "http://192.168.1.20:53317/?session=Vq3mZ0c1kT8sYb2nQ4xW5e"

    /// The 7x7 finder pattern: a dark ring, a light ring, a dark 3x3 centre.
    func isFinder(_ code: QRCode, row: Int, column: Int) -> Bool {
        for y in 0..<7 {
            for x in 0..<7 {
                let ring = max(abs(y - 3), abs(x - 3))
                if code.isDark(row: row + y, column: column + x) != (ring != 2) { return false }
            }
        }
        return true
    }

    @Test func aLinkBecomesACodeWithFinderPatternsAtThreeCorners() throws {
        let code = try QRCode(encoding: address)
        #expect(code.size >= 21 && (code.size - 21) % 4 == 0)
        #expect(code.modules.count == code.size * code.size)
        #expect(isFinder(code, row: 0, column: 0))
        #expect(isFinder(code, row: 0, column: code.size - 7))
        #expect(isFinder(code, row: code.size - 7, column: 0))
        #expect(!isFinder(code, row: code.size - 7, column: code.size - 7))
        // The separators beside the finders are light, and the timing pattern alternates.
        #expect((0..<8).allSatisfy { !code.isDark(row: 7, column: $0) && !code.isDark(row: $0, column: 7) })
        #expect((8..<(code.size - 8)).allSatisfy { code.isDark(row: 6, column: $0) == ($0 % 2 == 0) })
    }

    @Test func anotherTextGivesAnotherCodeAndALongerOneALargerCode() throws {
        let code = try QRCode(encoding: address)
        #expect(try QRCode(encoding: address) == code)
        #expect(try QRCode(encoding: address.replacingOccurrences(of: "Vq3m", with: "Vq3n")).modules != code.modules)
        #expect(try QRCode(encoding: address + String(repeating: "x", count: 200)).size > code.size)
    }

    @Test func anEmptyOrHugeTextIsRefusedWithTheReason() {
        #expect(throws: QRCodeError.self) { try QRCode(encoding: "") }
        let error = #expect(throws: QRCodeError.self) { try QRCode(encoding: String(repeating: "a", count: 5000)) }
        #expect(error?.description.contains("too long") == true)
    }

    /// Reads the drawing back into modules: each character is a column, two rows high.
    func modules(of lines: [String]) -> [[Bool]] {
        var rows: [[Bool]] = []
        for line in lines {
            let text = line.replacingOccurrences(of: "\u{1B}[37;40m", with: "").replacingOccurrences(of: "\u{1B}[0m", with: "")
            var top: [Bool] = []
            var bottom: [Bool] = []
            for character in text {
                // Light is drawn; a dark module is the background.
                switch character {
                case "█": (top, bottom) = (top + [false], bottom + [false])
                case "▀": (top, bottom) = (top + [false], bottom + [true])
                case "▄": (top, bottom) = (top + [true], bottom + [false])
                case " ": (top, bottom) = (top + [true], bottom + [true])
                default: Issue.record("unexpected character \(character)")
                }
            }
            rows += [top, bottom]
        }
        return rows
    }

    @Test func theDrawingIsTheCodeInHalfBlocksWithALightQuietZone() throws {
        let code = try QRCode(encoding: address)
        let zone = QRCode.quietZone
        let lines = code.terminalLines()
        let side = code.size + 2 * zone
        #expect(lines.count == (side + 1) / 2)
        #expect(lines.allSatisfy { $0.hasPrefix("\u{1B}[37;40m") && $0.hasSuffix("\u{1B}[0m") })
        let drawn = modules(of: lines)
        #expect(drawn.allSatisfy { $0.count == side })
        for row in 0..<side {
            for column in 0..<side {
                let inside = (zone..<(zone + code.size))
                let expected = inside.contains(row) && inside.contains(column)
                    ? code.isDark(row: row - zone, column: column - zone) : false
                if drawn[row][column] != expected {
                    Issue.record("module \(row),\(column) is drawn \(drawn[row][column] ? "dark" : "light")")
                    return
                }
            }
        }
        // The first lines are the quiet zone: light only.
        #expect(lines[0].contains("████") && !lines[0].contains(" "))
        #expect(code.terminalLines(quietZone: 0).count == (code.size + 1) / 2)
    }
}
