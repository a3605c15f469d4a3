/// The zstd level of a send, following how fast the link drains, in the manner of zstd's own
/// adaptive mode (`zstd --adapt`): while the network is the bottleneck (writing to the socket takes
/// longer than preparing what is written) the level goes up, buying a smaller payload with CPU
/// time there is to spare; while preparing the bytes is the bottleneck the level goes down; and
/// when even the fastest level would not make the transfer faster than raw bytes (a fast link, or
/// data that hardly compresses), compression stops until a probe shows that it pays again.
///
/// It is pure: it learns only from the ``Measurement``s it is given, one per stretch of the
/// stream. Its model: the bytes are prepared on one thread (read and hashed, then compressed) and
/// written on another, so a stream goes as fast as the slower of the two. Per file byte,
/// preparing costs `s + φ·c` seconds (`s` reading and hashing, `c` compressing, `φ` the share of
/// the bytes given to zstd) and writing costs `w · (φ·r + 1 − φ)` (`w` the seconds the network
/// takes per wire byte, `r` the ratio); raw, they cost `s` and `w`. The network's `w` is known
/// only as it was measured: while preparing is the bottleneck the socket never fills and `w` is
/// just the cost of encrypting, so the `w` of raw bytes is remembered apart, from the last time
/// raw bytes were sent.
///
/// A receiver on this machine (a loopback address, or the machine's own) may be a process next
/// door, whose "link" is a memory copy, or the end of an `ssh -L` tunnel to a distant machine,
/// where compression pays most: the address does not tell, the connection's drain does. Such a
/// send starts at `settings.startLevel` and is judged stretch by stretch (the compressor makes
/// every chunk a stretch until then, and sends it raw) once ``CompressionSettings/verdictWireBytes``
/// are written: when the socket then holds at most ``CompressionSettings/nearQueueBytes``
/// unacknowledged, the receiver takes the bytes as fast as they are written and the send goes
/// raw; when it holds at least ``CompressionSettings/farQueueBytes`` after two writes in a row,
/// the bytes wait for a slower link and the send compresses as to a distant receiver, keeping its
/// level while that many bytes wait. (Waiting for the writes to slow down would come too late: a
/// tunnel's buffers take megabytes at memory speed.) Either way the receiver shares this
/// machine's CPUs: it spends `d` seconds per file byte decompressing
/// (``CompressionSettings/decompressionSeconds``), and the "network" is mostly its own work, so
/// nothing overlaps: compressing costs `s + φ·(c + d) + w · (φ·r + 1 − φ)` per file byte against
/// raw's `max(s, w)`, and must save ``CompressionSettings/thisMachineGain`` of raw's time, not
/// ``CompressionSettings/requiredGain``, to start or to go on. So a raw send to this machine
/// compresses again only when its raw bytes drain far slower than this machine compresses and
/// decompresses them.
public struct AdaptiveLevel: Sendable {
    /// What to do with the next chunks.
    public enum Choice: Sendable, Hashable {
        /// Compress at this level.
        case level(Int)
        /// Send raw (except a probe now and then, at ``AdaptiveLevel/probeLevel``).
        case raw
    }

    /// What the sender measured over one stretch of the stream, under the current ``choice``.
    public struct Measurement: Sendable, Hashable {
        /// The level the compressed chunks of the stretch used.
        public var level: Int
        /// File bytes in the stretch, and the time it took to read and hash them (zero if unknown).
        public var fileBytes: Int
        public var sourceTime: Duration
        /// File bytes given to zstd, the payload bytes that came out (a chunk sent raw because it
        /// did not shrink counts its own size) and the time zstd took.
        public var compressedInput: Int
        public var compressedOutput: Int
        public var compressionTime: Duration
        /// Bytes the network took and the time it took to take them, waits for a full socket
        /// included.
        public var wireBytes: Int
        public var writeTime: Duration
        /// The socket's unacknowledged bytes at the end of the stretch, when known.
        public var queuedBytes: Int?

        /// A measurement.
        public init(
            level: Int, fileBytes: Int = 0, sourceTime: Duration = .zero, compressedInput: Int = 0,
            compressedOutput: Int = 0, compressionTime: Duration = .zero, wireBytes: Int = 0,
            writeTime: Duration = .zero, queuedBytes: Int? = nil
        ) {
            self.level = level
            self.fileBytes = fileBytes
            self.sourceTime = sourceTime
            self.compressedInput = compressedInput
            self.compressedOutput = compressedOutput
            self.compressionTime = compressionTime
            self.wireBytes = wireBytes
            self.writeTime = writeTime
            self.queuedBytes = queuedBytes
        }
    }

    /// What is known of one level: seconds of compression per byte given to zstd, and the ratio.
    struct LevelCost: Sendable, Hashable {
        var seconds: Double
        var ratio: Double
    }

    /// The network counts as the bottleneck when writing takes this much longer than preparing.
    static let networkBound = 1.5
    /// A step is two levels when one side takes this much longer than the other.
    static let farOff = 3.0
    /// Decisions in a row that find compression not paying before it stops.
    static let patience = 2
    /// Weight of a new measurement in the running estimates.
    static let smoothing = 0.5

    /// The current choice.
    public private(set) var choice: Choice
    private let settings: CompressionSettings
    /// Seconds per file byte of reading and hashing.
    private var sourceCost = 0.0
    /// The share of file bytes given to zstd while compressing.
    private var compressedShare = 1.0
    private var levelCosts: [Int: LevelCost] = [:]
    /// Seconds the network takes per wire byte, while compressing and while sending raw.
    private var compressedWireCost: Double?
    private var rawWireCost: Double?
    private var wireBytes = 0
    private var warm = false
    private var strikes = 0
    /// Whether the receiver runs on this machine's CPUs.
    public let receiverOnThisMachine: Bool
    /// Whether a receiver on this machine is still to be judged near (raw) or far.
    public private(set) var awaitsVerdict: Bool

    /// Starts at `settings.startLevel`; with `receiverOnThisMachine` (the receiver shares this
    /// machine's CPUs) judged first by how the connection drains.
    public init(settings: CompressionSettings, receiverOnThisMachine: Bool = false) {
        self.settings = settings
        self.receiverOnThisMachine = receiverOnThisMachine
        awaitsVerdict = receiverOnThisMachine
        choice = .level(settings.startLevel)
    }

    /// The level a probe uses while compression is off: the fastest; to a receiver on this
    /// machine the starting level, whose ratio is the one a tunnel's transfer would get.
    public var probeLevel: Int {
        if receiverOnThisMachine { return settings.startLevel }
        return settings.levels.lowerBound == 0 ? 1 : settings.levels.lowerBound
    }

    /// Takes in one stretch's measurement and returns the choice for the next.
    @discardableResult
    public mutating func update(_ measurement: Measurement) -> Choice {
        if awaitsVerdict { return judge(measurement) }
        // A stretch that began before the warm-up was over may have written into an empty socket
        // buffer: it may raise the level, never lower it, and the first stretch after it starts
        // the network's estimates afresh.
        // The socket's buffer is full too once a stretch's writes took longer than preparing its
        // bytes: they waited for the network. (Counting wire bytes alone, a send that compresses
        // well would never warm up: 4 MiB of wire bytes are 24 MiB of text at a ratio of 0.17, so
        // its level could only go up.)
        let waited =
            measurement.wireBytes > 0 && measurement.writeTime > measurement.sourceTime + measurement.compressionTime
        // And once the link is seen to take everything: after ``CompressionSettings/keepUpWireBytes``
        // the socket holds almost nothing unacknowledged, where a slower link would have let the
        // sender's bytes pile up in it. (Without this a send that compresses well on a fast link
        // never warms up, and keeps its starting level to the end.)
        let keptUp =
            measurement.queuedBytes.map {
                wireBytes + measurement.wireBytes >= settings.keepUpWireBytes && $0 <= settings.keptUpQueueBytes
            } ?? false
        let warmedUp = warm || wireBytes >= settings.warmUpWireBytes || waited || keptUp
        if warmedUp && !warm {
            warm = true
            compressedWireCost = nil
            rawWireCost = nil
        }
        learn(measurement)
        switch choice {
        case .raw:
            if warmedUp, let raw = rawCost(), let probe = cost(at: probeLevel, wireCost: rawWireCost),
                pays(probe, against: raw)
            {
                choice = .level(probeLevel)
                strikes = 0
            }
        case .level(let level):
            guard let (preparing, writing) = cost(at: level, wireCost: compressedWireCost) else { return choice }
            if writing > preparing * Self.networkBound && level < settings.levels.upperBound {
                choice = .level(step(level, by: writing > preparing * Self.farOff ? 2 : 1))
                strikes = 0
            } else if receiverOnThisMachine, let queued = measurement.queuedBytes, queued >= settings.farQueueBytes {
                // The bytes wait in the socket for a link slower than this machine: the writes
                // only look fast while a tunnel's buffers fill.
                strikes = 0
            } else if warmedUp && preparing > writing && level > settings.levels.lowerBound {
                choice = .level(step(level, by: preparing > writing * Self.farOff ? -2 : -1))
                strikes = 0
            } else if warmedUp, let raw = rawCost(), !pays((preparing, writing), against: raw) {
                strikes += 1
                if strikes >= Self.patience {
                    choice = .raw
                    strikes = 0
                }
            } else {
                strikes = 0
            }
        }
        return choice
    }

    /// A receiver on this machine, before the verdict: raw once it takes everything as fast as it
    /// is written (or when the kernel does not say), as to a distant one once bytes wait for it.
    private mutating func judge(_ measurement: Measurement) -> Choice {
        learn(measurement)
        guard wireBytes >= settings.verdictWireBytes else { return choice }
        guard let queued = measurement.queuedBytes, queued > settings.nearQueueBytes else {
            awaitsVerdict = false
            choice = .raw
            return choice
        }
        // Far only when two stretches in a row that wrote bytes say so: a receiver next door that
        // was slow to read once empties its socket by the next write, a link that is slower does
        // not. (Small files make stretches of microseconds, many of them between two writes.)
        if queued < settings.farQueueBytes {
            strikes = 0
        } else if measurement.wireBytes > 0 {
            strikes += 1
        }
        if strikes >= Self.patience {
            awaitsVerdict = false
            strikes = 0
        }
        return choice
    }

    /// The model's seconds per file byte for preparing and for writing at `level`, once known,
    /// with the network taking `wireCost` seconds per wire byte. Preparing includes the receiver's
    /// decompression when the receiver shares this machine's CPUs.
    private func cost(at level: Int, wireCost: Double?) -> (preparing: Double, writing: Double)? {
        guard let cost = levelCosts[level], let w = wireCost else { return nil }
        let share = compressedShare
        let decompressing = receiverOnThisMachine ? settings.decompressionSeconds : 0
        return (sourceCost + share * (cost.seconds + decompressing), w * (share * cost.ratio + 1 - share))
    }

    /// Whether compressing at `cost` saves enough against raw's `raw` seconds per file byte: the
    /// slower of preparing and writing, which overlap between two machines; their sum, which do
    /// not on one machine's CPUs.
    private func pays(_ cost: (preparing: Double, writing: Double), against raw: Double) -> Bool {
        if receiverOnThisMachine {
            return cost.preparing + cost.writing <= raw * (1 - settings.thisMachineGain)
        }
        return max(cost.preparing, cost.writing) <= raw * (1 - settings.requiredGain)
    }

    /// The model's seconds per file byte for raw bytes, once the network's cost is known.
    private func rawCost() -> Double? {
        guard let w = rawWireCost ?? compressedWireCost else { return nil }
        return max(sourceCost, w)
    }

    /// `level` moved by `steps`, skipping 0 (libzstd's "default"), within the settings' levels.
    private func step(_ level: Int, by steps: Int) -> Int {
        var next = level
        for _ in 0..<abs(steps) {
            next += steps > 0 ? 1 : -1
            if next == 0 { next += steps > 0 ? 1 : -1 }
        }
        return min(max(next, settings.levels.lowerBound), settings.levels.upperBound)
    }

    private mutating func learn(_ measurement: Measurement) {
        func blend(_ old: Double?, _ new: Double) -> Double { old.map { $0 + Self.smoothing * (new - $0) } ?? new }
        if measurement.wireBytes > 0 {
            wireBytes += measurement.wireBytes
            let w = measurement.writeTime.seconds / Double(measurement.wireBytes)
            if case .raw = choice, measurement.compressedInput < measurement.fileBytes / 2 {
                rawWireCost = blend(rawWireCost, w)
            } else if case .level = choice {
                compressedWireCost = blend(compressedWireCost, w)
            }
        }
        if measurement.fileBytes > 0 {
            sourceCost = blend(sourceCost, measurement.sourceTime.seconds / Double(measurement.fileBytes))
            if case .level = choice {
                compressedShare = blend(compressedShare, Double(measurement.compressedInput) / Double(measurement.fileBytes))
            }
        }
        if measurement.compressedInput > 0 {
            let input = Double(measurement.compressedInput)
            let seconds = measurement.compressionTime.seconds / input
            let ratio = Double(measurement.compressedOutput) / input
            let old = levelCosts[measurement.level]
            levelCosts[measurement.level] = LevelCost(seconds: blend(old?.seconds, seconds), ratio: blend(old?.ratio, ratio))
        }
    }
}
