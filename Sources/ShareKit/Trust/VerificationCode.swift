public import ShareTLS

/// The short code two users compare on first contact (docs/PROTOCOL.md §10).
///
/// Both sides derive it from the two public-key fingerprints alone, so they show the same code
/// exactly when each sees the other's real key. Because fingerprints are public, an attacker in
/// the middle could try keys offline until its code collides; 12 digits (about 40 bits) make
/// that search take years of computing instead of seconds (6 digits would fall in seconds).
public enum VerificationCode {
    /// Digits in a code.
    public static let digitCount = 12
    /// The domain-separation label hashed in front of the fingerprints.
    static let label = Array("share verification code v1".utf8) + [0]

    /// The code for a connection between `a` and `b` (order does not matter): `482 913 074 551`.
    public static func between(_ a: Fingerprint, _ b: Fingerprint) -> String {
        let (first, second) = a.bytes.lexicographicallyPrecedes(b.bytes) ? (a, b) : (b, a)
        var hasher = SHA256()
        hasher.update(label)
        hasher.update(first.bytes)
        hasher.update(second.bytes)
        let digest = hasher.finalize()
        var value: UInt64 = 0
        for byte in digest.prefix(8) { value = value << 8 | UInt64(byte) }
        var digits = String(value % 1_000_000_000_000)
        digits = String(repeating: "0", count: digitCount - digits.count) + digits
        return stride(from: 0, to: digitCount, by: 3).map { offset in
            let start = digits.index(digits.startIndex, offsetBy: offset)
            return String(digits[start..<digits.index(start, offsetBy: 3)])
        }.joined(separator: " ")
    }
}
