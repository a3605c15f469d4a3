// Fingerprint parsing, formatting and prefix matching.

import Foundation
import Testing

@testable import ShareTLS

@Suite("Fingerprint")
struct FingerprintTests {
    static let hex = "3f2a9c01" + "00112233445566778899aabbccddeeff" + "0123456789abcdef01234567"
    static let sample = Fingerprint(hex: hex)!

    @Test("hex and grouped forms")
    func forms() {
        let fingerprint = Self.sample
        #expect(fingerprint.hex == Self.hex)
        #expect(fingerprint.grouped.hasPrefix("3F2A 9C01 0011 2233"))
        #expect(fingerprint.grouped.split(separator: " ").count == 16)
        #expect(fingerprint.grouped.split(separator: " ").allSatisfy { $0.count == 4 })
        #expect(fingerprint.grouped == fingerprint.grouped.uppercased())
        #expect(fingerprint.description == fingerprint.grouped)
        #expect(fingerprint.bytes.count == 32)
        #expect(fingerprint.bytes.first == 0x3F)
    }

    @Test("parsing tolerates spaces, colons and case")
    func parsing() {
        let fingerprint = Self.sample
        #expect(Fingerprint(hex: fingerprint.grouped) == fingerprint)
        #expect(Fingerprint(hex: Self.hex.uppercased()) == fingerprint)
        let colons = stride(from: 0, to: 64, by: 2).map { i -> String in
            let start = Self.hex.index(Self.hex.startIndex, offsetBy: i)
            return String(Self.hex[start..<Self.hex.index(start, offsetBy: 2)])
        }.joined(separator: ":")
        #expect(Fingerprint(hex: colons) == fingerprint)
    }

    @Test(
        "parsing rejects wrong lengths and other characters",
        arguments: [
            "", "3f2a", String(hex.dropLast()), hex + "0", "g" + String(hex.dropFirst()),
            hex.replacingOccurrences(
                of: "3f", with: "3-"), "0x" + String(hex.dropFirst(2)),
        ])
    func parsingRejects(_ text: String) {
        #expect(Fingerprint(hex: text) == nil)
    }

    @Test("prefix gives lowercase digits, clamped")
    func prefix() {
        #expect(Self.sample.prefix(8) == "3f2a9c01")
        #expect(Self.sample.prefix(0) == "")
        #expect(Self.sample.prefix(-3) == "")
        #expect(Self.sample.prefix(100) == Self.hex)
    }

    @Test(
        "prefix matching ignores spaces, colons and case",
        arguments: [
            "3f2a", "3F2A 9C", "3f:2a:9c:01", " 3f2a9c01 0011 ", hex, "3",
        ])
    func matches(_ typed: String) {
        #expect(Self.sample.matches(prefix: typed))
    }

    @Test(
        "empty, non-hex, wrong or too long prefixes never match",
        arguments: [
            "", "   ", ":", "3f2b", "zz", "3f2a-9c01", hex + "0", "4",
        ])
    func doesNotMatch(_ typed: String) {
        #expect(!Self.sample.matches(prefix: typed))
    }

    @Test("Codable uses the hex string")
    func codable() throws {
        let data = try JSONEncoder().encode([Self.sample])
        #expect(String(decoding: data, as: UTF8.self) == "[\"\(Self.hex)\"]")
        #expect(try JSONDecoder().decode([Fingerprint].self, from: data) == [Self.sample])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([Fingerprint].self, from: Data("[\"3f2a\"]".utf8))
        }
    }

    @Test("only 32 bytes make a fingerprint")
    func byteCount() {
        #expect(Fingerprint(bytes: [UInt8](repeating: 1, count: 31)) == nil)
        #expect(Fingerprint(bytes: [UInt8](repeating: 1, count: 32)) != nil)
    }
}
