// ShareTLS: the identity of a node, as the SHA-256 of its public key.

/// The identity of a `share` node: the SHA-256 of its public key (the DER SubjectPublicKeyInfo).
///
/// The fingerprint names the key, not the certificate, so a renewed certificate for the same key keeps the
/// same fingerprint. It is what peers pin, what the discovery TXT record advertises a prefix of, and what a
/// user compares when asked whether to trust a machine.
///
/// `description` is the ``grouped`` form; `Codable` uses the 64-digit lowercase ``hex`` form.
public struct Fingerprint: Hashable, Sendable, CustomStringConvertible, Codable {
    /// The number of bytes in a fingerprint (SHA-256).
    public static let byteCount = 32

    /// The 32 bytes of the SHA-256 digest.
    public let bytes: [UInt8]

    /// Makes a fingerprint from a 32-byte SHA-256 digest.
    ///
    /// - Parameter bytes: exactly ``byteCount`` bytes.
    /// - Returns: `nil` if `bytes` is not 32 bytes long.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Fingerprint.byteCount else { return nil }
        self.bytes = Array(bytes)
    }

    /// Parses a fingerprint typed or pasted by a user.
    ///
    /// Spaces, colons and case are ignored, so `3F2A 9C01 …`, `3f:2a:9c:01:…` and `3f2a9c01…` all parse.
    /// - Parameter hex: 64 hexadecimal digits, optionally separated by spaces or colons.
    /// - Returns: `nil` unless exactly 64 hexadecimal digits remain after removing separators.
    public init?(hex: String) {
        guard let digits = Fingerprint.normalizedHexDigits(hex), digits.count == 2 * Fingerprint.byteCount else {
            return nil
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Fingerprint.byteCount)
        var index = digits.startIndex
        while index < digits.endIndex {
            bytes.append(digits[index] << 4 | digits[index + 1])
            index += 2
        }
        self.bytes = bytes
    }

    /// The 64 lowercase hexadecimal digits, e.g. `3f2a9c01…`.
    public var hex: String {
        String(decoding: Fingerprint.hexDigits(bytes, uppercase: false), as: UTF8.self)
    }

    /// Uppercase hexadecimal in groups of four digits separated by spaces, e.g. `3F2A 9C01 …`, for people
    /// to read aloud and compare.
    public var grouped: String {
        let digits = Fingerprint.hexDigits(bytes, uppercase: true)
        var out: [UInt8] = []
        out.reserveCapacity(digits.count + digits.count / 4)
        for (offset, digit) in digits.enumerated() {
            if offset > 0 && offset % 4 == 0 { out.append(UInt8(ascii: " ")) }
            out.append(digit)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The first `hexDigits` lowercase hexadecimal digits, e.g. for a TXT record or a short display.
    ///
    /// - Parameter hexDigits: the number of digits, clamped to `0...64`.
    public func prefix(_ hexDigits: Int) -> String {
        String(hex.prefix(max(0, min(hexDigits, 2 * Fingerprint.byteCount))))
    }

    /// Whether a prefix the user typed (or a peer advertised) matches this fingerprint.
    ///
    /// Spaces, colons and case are ignored. An empty prefix, a prefix with any other character, or one longer
    /// than 64 digits never matches, so an empty or mistyped value can never select a peer.
    public func matches(prefix: String) -> Bool {
        guard let digits = Fingerprint.normalizedHexDigits(prefix), !digits.isEmpty,
            digits.count <= 2 * Fingerprint.byteCount
        else { return false }
        for (offset, nibble) in digits.enumerated() {
            let byte = bytes[offset / 2]
            let expected = offset % 2 == 0 ? byte >> 4 : byte & 0x0F
            if nibble != expected { return false }
        }
        return true
    }

    /// The ``grouped`` form.
    public var description: String { grouped }

    /// Decodes the 64-digit hexadecimal form (separators tolerated, as in ``init(hex:)``).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Fingerprint(hex: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "not a SHA-256 fingerprint (64 hexadecimal digits): \(text)")
        }
        self = value
    }

    /// Encodes the 64-digit lowercase ``hex`` form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }

    /// The values (0...15) of the hexadecimal digits in `text`, skipping spaces and colons; `nil` if any
    /// other character appears.
    private static func normalizedHexDigits(_ text: String) -> [UInt8]? {
        var digits: [UInt8] = []
        digits.reserveCapacity(text.utf8.count)
        for unit in text.utf8 {
            switch unit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits.append(unit - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digits.append(unit - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digits.append(unit - UInt8(ascii: "A") + 10)
            case UInt8(ascii: " "), UInt8(ascii: ":"): continue
            default: return nil
            }
        }
        return digits
    }

    /// ASCII hexadecimal digits of `bytes`.
    private static func hexDigits(_ bytes: [UInt8], uppercase: Bool) -> [UInt8] {
        let alphabet: [UInt8] = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(alphabet[Int(byte >> 4)])
            out.append(alphabet[Int(byte & 0x0F)])
        }
        return out
    }
}
