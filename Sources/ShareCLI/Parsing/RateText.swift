import Foundation

/// `--limit-rate` values: bytes per second, with an optional SI or binary unit and `/s`:
/// `500k`, `500kB`, `10M`, `10MB/s`, `1.5G`, `2MiB`, `800000`.
enum RateText {
    /// Bytes per second, or nil when the text is not a rate (or is zero).
    static func parse(_ text: String) -> UInt64? {
        var body = Substring(text.trimmingCharacters(in: .whitespaces))
        if body.lowercased().hasSuffix("/s") { body = body.dropLast(2) }
        let number = body.prefix { $0.isNumber || $0 == "." }
        let unit = body.dropFirst(number.count).lowercased()
        let multipliers: [String: Double] = [
            "": 1, "b": 1, "k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9,
            "kib": 1024, "mib": 1_048_576, "gib": 1_073_741_824,
        ]
        guard let value = Double(number), let multiplier = multipliers[unit] else { return nil }
        let rate = value * multiplier
        guard rate >= 1, rate < 1e15 else { return nil }
        return UInt64(rate)
    }

    /// The usage error for a value that is not a rate.
    static func problem(_ text: String) -> String {
        "The value '\(text)' is invalid for '--limit-rate'; expected bytes per second, e.g. 500k, 10M or 2MiB"
    }
}
