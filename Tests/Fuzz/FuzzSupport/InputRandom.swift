/// A deterministic pseudo-random sequence seeded from the fuzz input itself (SplitMix64), so the same
/// input always takes the same path (chunk sizes, buffer capacity) and a crash reproduces.
public struct InputRandom {
    private var state: UInt64

    /// Seeds the sequence with the FNV-1a hash of `bytes`.
    public init(seededBy bytes: UnsafeBufferPointer<UInt8>) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        state = hash
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// A number in `range`.
    public mutating func next(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }
}
