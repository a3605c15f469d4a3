/// Fingerprints as people read them in messages.
public enum FingerprintText {
    /// The first 16 hex digits, grouped.
    public static func short(_ fingerprint: String) -> String {
        stride(from: 0, to: min(16, fingerprint.count), by: 4).map { offset in
            let start = fingerprint.index(fingerprint.startIndex, offsetBy: offset)
            return String(fingerprint[start..<fingerprint.index(start, offsetBy: min(4, fingerprint.count - offset))]).uppercased()
        }.joined(separator: " ")
    }
}
