/// Transfer rates as users type them: `500k`, `10M`, `10 MB/s`, `2MiB`, `1.5G`; `none` for no limit.
public enum ByteRate {
    /// The smallest limit accepted: below it every transfer would run into the peers' idle timeouts.
    public static let minimum: UInt64 = 10_000

    /// Parses `text` into bytes per second (0: no limit); nil when it is not a rate.
    public static func parse(_ text: String) -> UInt64? {
        var word = text.lowercased().filter { $0 != " " }
        if ["none", "off", "unlimited", "0"].contains(word) { return 0 }
        for suffix in ["/s", "ps"] where word.hasSuffix(suffix) { word.removeLast(suffix.count) }
        if word.hasSuffix("b") { word.removeLast() }
        let binary = word.hasSuffix("i")
        if binary { word.removeLast() }
        let multipliers: [Character: Double] = ["k": 1e3, "m": 1e6, "g": 1e9]
        var multiplier = 1.0
        if let last = word.last, let found = multipliers[last] {
            word.removeLast()
            multiplier = binary ? pow1024(found) : found
        } else if binary {
            return nil
        }
        guard !word.isEmpty, word.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let number = Double(word),
            number > 0, number * multiplier < 1e15
        else { return nil }
        return UInt64((number * multiplier).rounded())
    }

    /// `10 MB/s`, or `none` for 0.
    public static func format(_ bytesPerSecond: UInt64) -> String {
        bytesPerSecond == 0 ? "none" : ByteCount.format(bytesPerSecond) + "/s"
    }

    /// 1024, 1024², 1024³ for k, M, G.
    private static func pow1024(_ decimal: Double) -> Double {
        decimal == 1e3 ? 1024 : decimal == 1e6 ? 1_048_576 : 1_073_741_824
    }
}
