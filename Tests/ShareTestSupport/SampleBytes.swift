/// Deterministic file contents for compression tests: text that compresses the way source code
/// does, and bytes that do not compress at all.
public enum SampleBytes {
    /// `count` bytes of lines that look like source code (identifiers, numbers, punctuation),
    /// compressible by zstd to roughly a quarter, different for each `seed`.
    public static func text(count: Int, seed: UInt64 = 1) -> [UInt8] {
        let words = [
            "let", "var", "func", "return", "guard", "else", "if", "for", "in", "while", "case", "switch",
            "count", "index", "offset", "bytes", "buffer", "value", "result", "error", "chunk", "level",
        ]
        var random = SeededRandom(seed: seed)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 80)
        while bytes.count < count {
            let indent = String(repeating: " ", count: 4 * Int(random.next() % 3))
            var line = indent
            for _ in 0..<(3 + Int(random.next() % 6)) {
                line += words[Int(random.next() % UInt64(words.count))]
                line += random.next() % 4 == 0 ? " = \(random.next() % 1000); " : " "
            }
            bytes.append(contentsOf: line.utf8)
            bytes.append(0x0A)
        }
        return Array(bytes.prefix(count))
    }

    /// `count` pseudo-random bytes (incompressible), different for each `seed`.
    public static func random(count: Int, seed: UInt64 = 1) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        var words = (0..<(count + 7) / 8).map { _ in random.next() }
        return words.withUnsafeMutableBytes { Array($0.prefix(count)) }
    }
}

/// SplitMix64: a small deterministic generator, so a failing test sees the same bytes again.
public struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    /// A generator that always produces the same sequence for `seed`.
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
