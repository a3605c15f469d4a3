import ShareDiscovery
import Testing

@Suite("TXT record codec")
struct TXTRecordTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test("share's own record round-trips")
    func roundTrip() throws {
        let attributes = ["v": "1", "fp": "0123456789abcdef0123456789abcdef"]
        let entries = try TXTRecord.encode(attributes)
        #expect(entries == [Self.bytes("fp=0123456789abcdef0123456789abcdef"), Self.bytes("v=1")], "sorted by key")
        #expect(TXTRecord.decode(entries) == attributes)
    }

    @Test("Keys are case-insensitive: lowercased, first occurrence wins")
    func keysIgnoreCase() {
        let decoded = TXTRecord.decode([Self.bytes("FP=abc"), Self.bytes("fp=def"), Self.bytes("V=1")])
        #expect(decoded == ["fp": "abc", "v": "1"])
    }

    @Test("A key without '=' is a boolean attribute; 'key=' is an empty value; '=' inside values is kept")
    func booleanAndEmpty() {
        let decoded = TXTRecord.decode([Self.bytes("flag"), Self.bytes("empty="), Self.bytes("eq=a=b")])
        #expect(decoded == ["flag": "", "empty": "", "eq": "a=b"])
    }

    @Test("Binary junk, empty keys, empty strings and oversized entries are skipped without a crash")
    func junkIsIgnored() {
        let entries: [[UInt8]] = [
            [],
            Self.bytes("=novalue"),
            [0x00, 0x01, 0x3D, 0x41],  // control bytes in the key
            [0x6B, 0x3D, 0xFF, 0xFE, 0x00],  // value not UTF-8
            [0xC3, 0xA9, 0x3D, 0x31],  // non-ASCII key
            Self.bytes("big=") + [UInt8](repeating: 0x41, count: 300),
            Self.bytes("ok=yes"),
        ]
        #expect(TXTRecord.decode(entries) == ["ok": "yes"])
    }

    @Test("Random byte strings never crash the decoder")
    func randomBytes() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let entries = (0..<Int.random(in: 0...8, using: &generator)).map { _ in
                (0..<Int.random(in: 0...300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator)
                }
            }
            let decoded = TXTRecord.decode(entries)
            #expect(decoded.keys.allSatisfy { !$0.isEmpty && $0 == $0.lowercased() })
        }
    }

    @Test(
        "Encoding refuses what a peer could not decode",
        arguments: [
            ["": "x"], ["a=b": "x"], ["k\u{1}": "x"], ["cl\u{e9}": "x"], ["fp": "1", "FP": "2"],
            ["k": String(repeating: "x", count: 254)],
        ])
    func encodeRefuses(_ attributes: [String: String]) {
        #expect(throws: DiscoveryError.self) { try TXTRecord.encode(attributes) }
    }

    @Test("An entry of exactly 255 bytes is accepted; its error message names the key otherwise")
    func lengthLimit() throws {
        let fits = ["k": String(repeating: "x", count: 253)]
        #expect(try TXTRecord.encode(fits).first?.count == 255)
        do {
            _ = try TXTRecord.encode(["key": String(repeating: "x", count: 300)])
            Issue.record("a 304-byte entry was accepted")
        } catch {
            #expect(error.description.contains("'key'"))
            #expect(error.description.contains("255"))
        }
    }
}
