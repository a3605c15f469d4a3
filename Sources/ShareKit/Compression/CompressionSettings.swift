public import ShareWire

/// How a sender compresses DATA (docs/PROTOCOL.md §8, docs/PERFORMANCE.md "Compression").
public struct CompressionSettings: Sendable, Hashable {
    /// Whether zstd is offered and used at all (`false`: every DATA frame is raw, HELLO does not
    /// carry ZSTD).
    public var isEnabled: Bool
    /// The zstd levels the adaptive level moves between: negative levels are faster than 1 and
    /// compress less (0 is skipped: libzstd reads it as its default, 3).
    public var levels: ClosedRange<Int>
    /// The level a transfer starts at.
    public var startLevel: Int
    /// A chunk is a sample of its file: when it compresses to more than this fraction of its size,
    /// the file's following bytes go raw until ``resampleBytes`` later.
    public var sampleRatio: Double
    /// How many bytes of a file go raw after a sample that did not compress, before the next sample.
    public var resampleBytes: UInt64
    /// Chunks smaller than this are sent raw (a zstd frame has 6-13 bytes of overhead).
    public var minimumChunkBytes: Int
    /// The level is reconsidered after this many file bytes.
    public var decisionBytes: Int
    /// Bytes the network must have taken before the level goes down or compression stops: the
    /// first writes fill the socket's buffer at memory speed, whatever the link.
    public var warmUpWireBytes: Int
    /// The warm-up also ends when, after this many wire bytes, the socket holds at most
    /// ``keptUpQueueBytes`` unacknowledged: the link took everything as fast as it was written.
    public var keepUpWireBytes: Int
    public var keptUpQueueBytes: Int
    /// Compression must make sending at least this fraction faster than raw, or it stops.
    public var requiredGain: Double
    /// While compression is off, one chunk is compressed after this many file bytes to see whether
    /// the link has become slower than compression.
    public var probeBytes: Int
    /// Seconds per file byte the receiver takes to decompress zstd, counted against compression
    /// when the receiver is on this machine and so takes its CPU from the sender (``AdaptiveLevel``).
    /// The default is zstd's decompression of source code on the machine of docs/PERFORMANCE.md,
    /// 1.3-1.4 GB/s on one core (`zstd -b3`: 0.75 ns per byte), rounded up.
    public var decompressionSeconds = 1.0e-9
    /// A receiver on this machine is judged once this many wire bytes were written (more than a
    /// tunnel takes in at once: the fault proxy's burst and socket buffer are about 400 KiB): raw
    /// when the socket then holds at most ``nearQueueBytes`` unacknowledged, as a distant one from
    /// ``farQueueBytes`` on (``AdaptiveLevel``); until then every chunk is a stretch.
    public var verdictWireBytes = 1 << 20
    public var nearQueueBytes = 32 << 10
    public var farQueueBytes = 128 << 10
    /// A receiver on this machine gets compressed data only when that makes sending at least this
    /// fraction faster than raw by the model that counts both sides' CPU: only when the raw bytes
    /// drain far slower than this machine compresses and decompresses (a tunnel to a distant
    /// machine, not a plain loopback whose receiver keeps up).
    public var thisMachineGain = 0.5
    /// Whether a receiver on this machine (a loopback address, or this machine's own address) is
    /// treated as a distant one: not judged by its drain, its decompression not counted. For
    /// tests and benchmarks that compress to loopback anyway.
    public var thisMachineAsDistant = false

    /// The defaults: levels -5 to 9, starting at 3.
    public init(
        isEnabled: Bool = true, levels: ClosedRange<Int> = -5...9, startLevel: Int = 3, sampleRatio: Double = 0.9,
        resampleBytes: UInt64 = 32 << 20, minimumChunkBytes: Int = 64, decisionBytes: Int = 2 << 20,
        warmUpWireBytes: Int = 4 << 20, keepUpWireBytes: Int = 2 << 20, keptUpQueueBytes: Int = 256 << 10,
        requiredGain: Double = 0.1, probeBytes: Int = 16 << 20
    ) {
        self.isEnabled = isEnabled
        self.levels = levels
        self.startLevel = min(max(startLevel, levels.lowerBound), levels.upperBound)
        self.sampleRatio = sampleRatio
        self.resampleBytes = resampleBytes
        self.minimumChunkBytes = minimumChunkBytes
        self.decisionBytes = decisionBytes
        self.warmUpWireBytes = warmUpWireBytes
        self.keepUpWireBytes = keepUpWireBytes
        self.keptUpQueueBytes = keptUpQueueBytes
        self.requiredGain = requiredGain
        self.probeBytes = probeBytes
    }

    /// No compression.
    public static let off = CompressionSettings(isEnabled: false)

    /// The HELLO features these settings announce: ZSTD when enabled.
    public var helloFeatures: HelloFeatures { isEnabled ? .zstd : [] }
}
