import ShareKit
import Testing

/// The adaptive level against a simulated sender and link: synthetic timings, no clock.
@Suite struct AdaptiveLevelTests {
    /// A sender (reading and hashing, then zstd, on one thread; encrypting and writing on another)
    /// and a link, simulated one stretch at a time.
    struct SimulatedSend {
        /// Seconds per byte of zstd and its ratio, per level: the shape of zstd on source code.
        static let sourceCode: [Int: (seconds: Double, ratio: Double)] = [
            -5: (1.0e-9, 0.45), -4: (1.1e-9, 0.44), -3: (1.2e-9, 0.42), -2: (1.4e-9, 0.40), -1: (1.6e-9, 0.38),
            1: (2.2e-9, 0.30), 2: (3.0e-9, 0.28), 3: (4.0e-9, 0.26), 4: (5.0e-9, 0.255), 5: (8e-9, 0.245),
            6: (11e-9, 0.235), 7: (14e-9, 0.23), 8: (18e-9, 0.225), 9: (22e-9, 0.22),
        ]

        var linkBytesPerSecond: Double
        var levels = Self.sourceCode
        /// The network thread's own cost per wire byte (TLS), and reading + hashing per file byte.
        var encryptSeconds = 1.5e-9
        var sourceSeconds = 0.8e-9
        /// The first wire bytes are taken at once, into the socket's buffer.
        var socketBuffer = 4 << 20
        var wireSoFar = 0
        /// Seconds so far, and whether the socket reports its unacknowledged bytes.
        var elapsed = 0.0
        var reportsQueue = false
        /// While raw, every eighth stretch is a probe at the probe level.
        var rawStretches = 0

        static let stretch = 2 << 20

        /// What one stretch under `choice` measures, and how long it takes.
        mutating func run(_ choice: AdaptiveLevel.Choice, probeLevel: Int) -> (AdaptiveLevel.Measurement, seconds: Double) {
            var level: Int?
            switch choice {
            case .level(let chosen): level = chosen
            case .raw:
                rawStretches += 1
                if rawStretches % 8 == 0 { level = probeLevel }
            }
            let file = Double(Self.stretch)
            let cost = level.map { levels[$0]! }
            let wire = file * (cost?.ratio ?? 1)
            let preparing = file * (sourceSeconds + (cost?.seconds ?? 0))
            let linkTime = wire / linkBytesPerSecond
            let encrypting = wire * encryptSeconds
            let buffered = wireSoFar < socketBuffer
            wireSoFar += Int(wire)
            let seconds = max(preparing, encrypting, buffered ? 0 : linkTime)
            // The network thread waits in write only while the link is the bottleneck.
            let writing = !buffered && linkTime >= preparing ? max(linkTime, encrypting) : encrypting
            elapsed += seconds
            // What the link has not taken yet sits in the socket (up to its buffer).
            let queued = min(socketBuffer, max(0, wireSoFar - Int(linkBytesPerSecond * elapsed)))
            var measurement = AdaptiveLevel.Measurement(
                level: level ?? 0, fileBytes: Self.stretch, sourceTime: .seconds(file * sourceSeconds),
                wireBytes: Int(wire), writeTime: .seconds(writing), queuedBytes: reportsQueue ? queued : nil)
            if let cost {
                measurement.compressedInput = Self.stretch
                measurement.compressedOutput = Int(wire)
                measurement.compressionTime = .seconds(file * cost.seconds)
            }
            return (measurement, seconds)
        }

        /// File bytes per second of the best fixed choice once the socket's buffer is full.
        func bestRate() -> (choice: AdaptiveLevel.Choice, rate: Double) {
            var best: (AdaptiveLevel.Choice, Double) = (.raw, rate(seconds: 0, ratio: 1))
            for (level, cost) in levels where rate(seconds: cost.seconds, ratio: cost.ratio) > best.1 {
                best = (.level(level), rate(seconds: cost.seconds, ratio: cost.ratio))
            }
            return best
        }

        func rate(seconds: Double, ratio: Double) -> Double {
            1 / max(sourceSeconds + seconds, ratio * encryptSeconds, ratio / linkBytesPerSecond)
        }
    }

    /// Runs `stretches` stretches; returns the file bytes per second over the last `tail` and every choice made.
    static func run(
        _ send: inout SimulatedSend, stretches: Int = 120, tail: Int = 30, settings: CompressionSettings = CompressionSettings(),
        receiverOnThisMachine: Bool = false
    ) -> (rate: Double, choices: [AdaptiveLevel.Choice]) {
        var adaptive = AdaptiveLevel(settings: settings, receiverOnThisMachine: receiverOnThisMachine)
        var choices: [AdaptiveLevel.Choice] = []
        var seconds = 0.0
        for index in 0..<stretches {
            let (measurement, took) = send.run(adaptive.choice, probeLevel: adaptive.probeLevel)
            if index >= stretches - tail { seconds += took }
            choices.append(adaptive.update(measurement))
        }
        return (Double(tail * SimulatedSend.stretch) / seconds, choices)
    }

    @Test(arguments: [
        ("100 Mbit/s", 12.5e6, 2.0), ("1 Gbit/s", 125e6, 2.0), ("a 400 MB/s receiver", 400e6, 1.2),
    ])
    func onALinkSlowerThanCompressionItFindsAGoodLevel(_ name: String, _ link: Double, _ gainOverRaw: Double) {
        var send = SimulatedSend(linkBytesPerSecond: link)
        let best = send.bestRate()
        let raw = send.rate(seconds: 0, ratio: 1)
        let (rate, choices) = Self.run(&send)
        #expect(rate >= 0.85 * best.rate, "\(name): \(Int(rate / 1e6)) MB/s, best \(best.choice) \(Int(best.rate / 1e6)) MB/s")
        #expect(rate >= gainOverRaw * raw, "\(name): \(Int(rate / 1e6)) MB/s, raw \(Int(raw / 1e6)) MB/s")
        // At most one short stretch of raw bytes, to learn what the network takes raw.
        #expect(choices.filter { $0 == .raw }.count <= 1, "\(name): \(choices.prefix(20))")
    }

    @Test func theSlowerTheLinkTheHigherTheLevel() {
        func settledLevel(_ link: Double) -> Int {
            var send = SimulatedSend(linkBytesPerSecond: link)
            guard case .level(let level) = Self.run(&send).choices.last else { return .min }
            return level
        }
        let levels = [12.5e6, 50e6, 125e6, 400e6].map(settledLevel)
        #expect(levels == levels.sorted(by: >) && levels.first! > levels.last!, "\(levels)")
        #expect(levels.first! >= 6, "100 Mbit/s: level \(levels.first!)")
    }

    @Test func aSlowLinkIsNotTakenForAFastOneWhileTheSocketBufferFills() {
        var send = SimulatedSend(linkBytesPerSecond: 12.5e6)
        send.socketBuffer = 4 << 20
        let (_, choices) = Self.run(&send, stretches: 20, tail: 1)
        for choice in choices {
            if case .level(let level) = choice { #expect(level >= 3, "\(choices)") } else { Issue.record("went raw: \(choices)") }
        }
    }

    @Test func onceTheWritesWaitedTheLevelComesDownWhenCompressionFallsBehindBeforeTheWarmUpBytes() {
        // Text at a ratio of 0.15: 2 MiB stretches put 0.3 MiB on the wire each, far from the 4 MiB
        // of the warm-up, but writes that took longer than preparing show the socket's buffer full.
        let stretch = 2 << 20
        var adaptive = AdaptiveLevel(settings: CompressionSettings())
        let waited = AdaptiveLevel.Measurement(
            level: 3, fileBytes: stretch, sourceTime: .milliseconds(2), compressedInput: stretch,
            compressedOutput: stretch * 15 / 100, compressionTime: .milliseconds(8), wireBytes: stretch * 15 / 100,
            writeTime: .milliseconds(25))
        guard case .level(let raised) = adaptive.update(waited), raised > 3 else {
            Issue.record("a 12.5 MB/s link did not raise the level: \(adaptive.choice)")
            return
        }
        // Then zstd at the higher level takes five times as long as the network (a busy machine).
        let behind = AdaptiveLevel.Measurement(
            level: raised, fileBytes: stretch, sourceTime: .milliseconds(2), compressedInput: stretch,
            compressedOutput: stretch * 14 / 100, compressionTime: .milliseconds(40), wireBytes: stretch * 14 / 100,
            writeTime: .milliseconds(8))
        guard case .level(let lowered) = adaptive.update(behind) else {
            Issue.record("went raw")
            return
        }
        #expect(lowered < raised)
    }

    @Test(arguments: [false, true])
    func aSlowLinkIsNotTakenForAFastOneWhileTheSocketQueueGrows(_ reportsQueue: Bool) {
        // Text at a ratio of 0.15 on 100 Mbit/s: the socket's queue grows with every stretch.
        var send = SimulatedSend(linkBytesPerSecond: 12.5e6)
        send.levels = send.levels.mapValues { ($0.seconds, $0.ratio * 0.6) }
        send.reportsQueue = reportsQueue
        let (_, choices) = Self.run(&send, stretches: 12, tail: 1)
        for choice in choices {
            if case .level(let level) = choice { #expect(level >= 3, "\(choices)") } else { Issue.record("went raw: \(choices)") }
        }
    }

    @Test func onALinkThatTakesEverythingAWellCompressingSendStopsCompressingBeforeTheWarmUpBytes() {
        // Text at a ratio of 0.15 on a link far faster than zstd: 24 MiB put only 3.6 MiB on the
        // wire, short of the 4 MiB warm-up, but the socket never holds anything.
        var send = SimulatedSend(linkBytesPerSecond: 10e9)
        send.encryptSeconds = 0.3e-9
        send.levels = send.levels.mapValues { ($0.seconds, $0.ratio * 0.6) }
        send.reportsQueue = false
        let (_, without) = Self.run(&send, stretches: 12, tail: 1)
        #expect(without.allSatisfy { $0 == .level(3) }, "no warm-up without the queue: \(without)")
        send = SimulatedSend(linkBytesPerSecond: 10e9)
        send.encryptSeconds = 0.3e-9
        send.levels = send.levels.mapValues { ($0.seconds, $0.ratio * 0.6) }
        send.reportsQueue = true
        let (_, choices) = Self.run(&send, stretches: 12, tail: 1)
        #expect(choices.contains(.raw), "\(choices)")
    }

    @Test func aLinkFasterThanCompressionGetsRawBytes() {
        var send = SimulatedSend(linkBytesPerSecond: 10e9)
        send.encryptSeconds = 0.3e-9
        let (rate, choices) = Self.run(&send)
        #expect(choices.last == .raw, "\(choices.suffix(10))")
        #expect(rate >= 0.8 * send.rate(seconds: 0, ratio: 1))
    }

    @Test func aSlowProcessorOnAGigabitLinkSendsRaw() {
        var send = SimulatedSend(linkBytesPerSecond: 125e6)
        send.levels = send.levels.mapValues { ($0.seconds * 10, $0.ratio) }
        send.sourceSeconds = 5e-9
        let (_, choices) = Self.run(&send)
        #expect(choices.last == .raw, "\(choices.suffix(10))")
    }

    @Test func dataThatHardlyCompressesIsSentRawEvenOnASlowLink() {
        var send = SimulatedSend(linkBytesPerSecond: 12.5e6)
        send.levels = send.levels.mapValues { ($0.seconds, 0.95) }
        let (_, choices) = Self.run(&send)
        #expect(choices.last == .raw, "\(choices.suffix(10))")
    }

    @Test func whenTheLinkSlowsDownCompressionComesBack() {
        var adaptive = AdaptiveLevel(settings: CompressionSettings())
        var fast = SimulatedSend(linkBytesPerSecond: 10e9)
        fast.encryptSeconds = 0.3e-9
        for _ in 0..<60 { adaptive.update(fast.run(adaptive.choice, probeLevel: adaptive.probeLevel).0) }
        #expect(adaptive.choice == .raw)
        var slow = SimulatedSend(linkBytesPerSecond: 12.5e6)
        slow.socketBuffer = 0
        for _ in 0..<60 { adaptive.update(slow.run(adaptive.choice, probeLevel: adaptive.probeLevel).0) }
        guard case .level(let level) = adaptive.choice else {
            Issue.record("still raw")
            return
        }
        #expect(level >= 6)
    }

    @Test func levelsStayInTheConfiguredRangeAndSkipZero() {
        let settings = CompressionSettings(levels: -2...4, startLevel: 1)
        var send = SimulatedSend(linkBytesPerSecond: 1e6)
        let slow = Self.run(&send, stretches: 40, settings: settings).choices
        #expect(slow.last == .level(4))
        var fast = SimulatedSend(linkBytesPerSecond: 400e6)
        let choices = slow + Self.run(&fast, stretches: 40, settings: settings).choices
        for case .level(let level) in choices { #expect((-2...4).contains(level) && level != 0, "\(level)") }
    }

    // A receiver on this machine: reached at a loopback address, it may be a process next door
    // (its drain is a memory copy and its CPU is the sender's) or the end of an `ssh -L` tunnel to
    // a distant machine (its drain is the distant link). Before, it always got raw bytes.

    @Test func aTunnelToThisMachineOverASlowLinkCompressesFromTheStart() {
        // 100 Mbit/s behind 127.0.0.1: the bytes pile up in the socket from the first stretch.
        var send = SimulatedSend(linkBytesPerSecond: 12.5e6)
        send.reportsQueue = true
        let raw = send.rate(seconds: 0, ratio: 1)
        let (rate, choices) = Self.run(&send, receiverOnThisMachine: true)
        #expect(!choices.contains(.raw), "\(choices.prefix(20))")
        #expect(rate >= 2 * raw, "\(Int(rate / 1e6)) MB/s, raw \(Int(raw / 1e6)) MB/s")
    }

    @Test(arguments: [400e6, 1e9, 10e9])
    func aReceiverNextDoorThatKeepsUpGetsRawBytes(_ drain: Double) {
        // The drain of a plain loopback: the receiver takes 400 MB/s or more, and the socket holds
        // nothing when the next stretch is ready. A distant 400 MB/s receiver is worth compressing to.
        var distant = SimulatedSend(linkBytesPerSecond: drain)
        distant.reportsQueue = true
        var send = distant
        if drain == 400e6 {
            #expect(Self.run(&distant).choices.last != .raw, "a distant 400 MB/s receiver gets compressed bytes")
        }
        // Judged once 1 MiB went out: after the first stretch (0.5 MiB of compressed bytes here;
        // the compressor sends the stretches before the verdict raw).
        let (_, choices) = Self.run(&send, receiverOnThisMachine: true)
        #expect(choices.dropFirst().allSatisfy { $0 == .raw }, "\(choices.prefix(20))")
    }

    @Test func aReceiverNextDoorThatWasSlowToReadOnceIsNotTakenForATunnel() {
        var adaptive = AdaptiveLevel(settings: CompressionSettings(), receiverOnThisMachine: true)
        func stretch(queued: Int?) -> AdaptiveLevel.Measurement {
            AdaptiveLevel.Measurement(
                level: 3, fileBytes: 1 << 20, sourceTime: .milliseconds(1), compressedInput: 1 << 20,
                compressedOutput: 1 << 18, compressionTime: .milliseconds(4), wireBytes: 1 << 20,
                writeTime: .milliseconds(1), queuedBytes: queued)
        }
        #expect(adaptive.awaitsVerdict)
        adaptive.update(stretch(queued: 600 << 10))
        #expect(adaptive.awaitsVerdict, "one full socket is no verdict")
        // Small files: stretches that wrote nothing see the same full socket again.
        var small = stretch(queued: 600 << 10)
        small.wireBytes = 0
        for _ in 0..<3 { adaptive.update(small) }
        #expect(adaptive.awaitsVerdict, "no write since: still no verdict")
        #expect(adaptive.update(stretch(queued: 0)) == .raw)
        #expect(!adaptive.awaitsVerdict)
        // Where the kernel does not tell the socket's queue, a receiver on this machine gets raw bytes.
        var unknown = AdaptiveLevel(settings: CompressionSettings(), receiverOnThisMachine: true)
        #expect(unknown.update(stretch(queued: nil)) == .raw)
    }

    @Test(arguments: [(0.0, true), (4e-9, false)])
    func theReceiversDecompressionCountsAgainstCompressingOnThisMachine(_ decompression: Double, _ compresses: Bool) {
        // A receiver next door that keeps up gets raw bytes; then its drain slows to 40 MB/s
        // (25 ns per byte). A probe at level 3 (reading 0.8 ns, zstd 4 ns, a ratio of 0.26) costs
        // 11.3 ns per byte in all, under half of raw's, enough to compress again; unless
        // decompressing takes the receiver 4 ns per byte more on the same CPUs.
        var settings = CompressionSettings()
        settings.decompressionSeconds = decompression
        var adaptive = AdaptiveLevel(settings: settings, receiverOnThisMachine: true)
        var fast = SimulatedSend(linkBytesPerSecond: 10e9)
        fast.reportsQueue = true
        for _ in 0..<10 { adaptive.update(fast.run(adaptive.choice, probeLevel: adaptive.probeLevel).0) }
        #expect(adaptive.choice == .raw)
        var slow = SimulatedSend(linkBytesPerSecond: 40e6)
        slow.socketBuffer = 0
        var choices: [AdaptiveLevel.Choice] = []
        for _ in 0..<40 { choices.append(adaptive.update(slow.run(adaptive.choice, probeLevel: adaptive.probeLevel).0)) }
        #expect(choices.contains { $0 != .raw } == compresses, "\(choices.prefix(20))")
    }
}
