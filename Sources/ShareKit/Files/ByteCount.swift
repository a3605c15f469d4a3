/// Human-readable byte counts (SI units, as file managers show them).
public enum ByteCount {
    /// `1.5 GB`, `320 kB`, `12 bytes`.
    public static func format(_ bytes: UInt64) -> String {
        if bytes < 1000 { return bytes == 1 ? "1 byte" : "\(bytes) bytes" }
        let units = ["kB", "MB", "GB", "TB", "PB", "EB"]
        var value = Double(bytes) / 1000
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        let text = value < 10 ? String(format1: value) : String(Int(value.rounded()))
        return "\(text) \(units[unit])"
    }
}

extension String {
    /// One decimal place, without Foundation's locale-dependent formatting.
    init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = "\(tenths / 10).\(tenths % 10)"
    }
}
