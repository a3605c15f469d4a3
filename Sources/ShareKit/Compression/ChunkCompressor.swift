import ShareCompression
public import ShareWire
import Synchronization

/// The sender's side of DATA compression (docs/PROTOCOL.md §8): turns file chunks into DATA
/// chunks, zstd-compressed where that pays and raw otherwise.
///
/// Per file, nothing is tried on types the registry knows are compressed (``CompressedTypes``);
/// otherwise every chunk is also a sample, and a chunk that compresses to more than
/// ``CompressionSettings/sampleRatio`` of its size sends the following
/// ``CompressionSettings/resampleBytes`` of its file raw. A chunk whose frame would not make the
/// payload smaller goes raw. The level follows the link (``AdaptiveLevel``): it is reconsidered
/// every ``CompressionSettings/decisionBytes`` from the time compression took and the time the
/// network took to take the bytes, which the network thread reports to the shared ``LinkPace``.
/// To a receiver on this machine every chunk is a stretch until the level has judged the
/// receiver near or far; until then, and while it sends raw, what it compresses is measured and
/// then sent raw, so that the receiver does not decompress unless the level says compressing pays.
///
/// Meant for the thread that reads files, ahead of the network thread: call ``startFile(path:)``
/// before each file's first chunk, then ``chunk(fileIndex:offset:bytes:sourceTime:)`` for each chunk in order.
/// Calls are serialized; one compressor serves one transfer.
public final class ChunkCompressor: Sendable {
    private struct State: Sendable {
        var adaptive: AdaptiveLevel
        /// Whether the current file's name says it is compressed.
        var fileSkipped = false
        /// The current file's bytes before this offset go raw (after a sample that did not compress).
        var rawUntil: UInt64 = 0
        /// Since the last decision: what reading, compression and the network did (the network as
        /// totals since the mark).
        var window = AdaptiveLevel.Measurement(level: 0)
        var paceMark = LinkPace.Totals()
        /// While compression is off: file bytes since the last probe, and bytes still to probe.
        var sinceProbe = 0
        var probeLeft = 0
        var typeCache: [String: Bool] = [:]
        var statistics: CompressionStatistics
    }

    /// A zstd DATA payload carries a 4-byte raw length besides its frame.
    static let rawLengthBytes = 4
    /// How much a probe compresses, so its measurement is not one small file's.
    static let probeBytes = FrameType.maxDataBytes
    /// Names remembered by the type cache before it starts again.
    static let typeCacheLimit = 4096

    private let settings: CompressionSettings
    private let types: CompressedTypes?
    private let pace: LinkPace
    private let zstd = ZstdCompressor()
    private let state: Mutex<State>

    /// A compressor for one transfer.
    /// - Parameters:
    ///   - settings: levels and thresholds; with `isEnabled` false every chunk goes raw.
    ///   - types: which names are compressed already; nil to sample every file.
    ///   - pace: where the network thread reports its writes.
    ///   - receiverOnThisMachine: whether the receiver shares this machine's CPUs (``AdaptiveLevel``).
    public init(
        settings: CompressionSettings = CompressionSettings(), types: CompressedTypes?, pace: LinkPace,
        receiverOnThisMachine: Bool = false
    ) {
        self.settings = settings
        self.types = types
        self.pace = pace
        let adaptive = AdaptiveLevel(settings: settings, receiverOnThisMachine: receiverOnThisMachine)
        state = Mutex(State(adaptive: adaptive, statistics: CompressionStatistics(choice: adaptive.choice)))
    }

    /// Starts a file: its path in the offer (only the name after the last `/` matters).
    public func startFile(path: String) {
        let skipped = settings.isEnabled && types != nil ? isCompressedType(path) : false
        state.withLock { state in
            state.fileSkipped = skipped
            state.rawUntil = 0
            if skipped { state.statistics.filesSkippedByType += 1 }
        }
    }

    /// The DATA chunk carrying `bytes` of the current file from `offset` on.
    /// - Parameters:
    ///   - fileIndex: the file's index among the offer's files.
    ///   - offset: where the bytes are in the file.
    ///   - bytes: 1 ... ``FrameType/maxDataBytes`` bytes.
    ///   - sourceTime: how long reading and hashing these bytes took, if measured: with it the
    ///     level also knows when the disk or the hash, not compression, holds the sender back.
    public func chunk(fileIndex: UInt32, offset: UInt64, bytes: [UInt8], sourceTime: Duration = .zero) -> DataChunk {
        precondition(!bytes.isEmpty && bytes.count <= FrameType.maxDataBytes, "a chunk of \(bytes.count) bytes")
        return state.withLock { state in
            // Until a receiver on this machine is judged, every chunk is a stretch, judged with the
            // socket as it is when the next chunk is ready.
            if state.adaptive.awaitsVerdict && state.window.fileBytes > 0 { decide(&state) }
            let level = level(for: bytes.count, offset: offset, state: &state)
            var chunk = DataChunk(fileIndex: fileIndex, offset: offset, bytes: bytes)
            if let level {
                let started = ContinuousClock.now
                let frame = zstd.compress(bytes, level: level, limit: bytes.count - Self.rawLengthBytes - 1)
                let output = frame.map { $0.count + Self.rawLengthBytes } ?? bytes.count
                state.window.level = level
                state.window.compressedInput += bytes.count
                state.window.compressedOutput += output
                state.window.compressionTime += ContinuousClock.now - started
                if Double(output) > Double(bytes.count) * settings.sampleRatio {
                    state.rawUntil = offset + UInt64(bytes.count) + settings.resampleBytes
                    state.statistics.samplesRefused += 1
                }
                let measuredOnly =
                    state.adaptive.receiverOnThisMachine && (state.adaptive.awaitsVerdict || state.adaptive.choice == .raw)
                if let frame, !measuredOnly { chunk = DataChunk(fileIndex: fileIndex, offset: offset, encoding: .zstd(rawLength: UInt32(bytes.count)), bytes: frame) }
            }
            if case .zstd = chunk.encoding { state.statistics.compressedChunks += 1 } else { state.statistics.rawChunks += 1 }
            state.statistics.fileBytes += UInt64(bytes.count)
            state.statistics.payloadBytes += UInt64(chunk.bytes.count)
            state.window.fileBytes += bytes.count
            state.window.sourceTime += sourceTime
            if state.window.fileBytes >= settings.decisionBytes { decide(&state) }
            return chunk
        }
    }

    /// What the compressor did so far.
    public var statistics: CompressionStatistics { state.withLock { $0.statistics } }

    /// The level to compress a chunk at, or nil to send it raw.
    private func level(for count: Int, offset: UInt64, state: inout State) -> Int? {
        guard settings.isEnabled, !state.fileSkipped, offset >= state.rawUntil, count >= settings.minimumChunkBytes
        else { return nil }
        switch state.adaptive.choice {
        case .level(let level):
            return level
        case .raw:
            if state.probeLeft <= 0 {
                state.sinceProbe += count
                guard state.sinceProbe >= settings.probeBytes else { return nil }
                state.sinceProbe = 0
                state.probeLeft = Self.probeBytes
            }
            state.probeLeft -= count
            return state.adaptive.probeLevel
        }
    }

    /// Feeds the window's measurement to the adaptive level and starts a new window.
    private func decide(_ state: inout State) {
        let now = pace.current
        state.window.wireBytes = now.bytes - state.paceMark.bytes
        state.window.writeTime = now.time - state.paceMark.time
        state.window.queuedBytes = pace.unacknowledgedNow ?? now.queued
        state.adaptive.update(state.window)
        state.statistics.choice = state.adaptive.choice
        state.paceMark = now
        state.window = AdaptiveLevel.Measurement(level: 0)
    }

    /// Whether the registry knows the file's name as a compressed type, remembered per extension.
    private func isCompressedType(_ path: String) -> Bool {
        guard let types else { return false }
        let name = path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path
        let key = name.dropFirst().firstIndex(of: ".").map { String(name[$0...]) } ?? name
        if let known = state.withLock({ $0.typeCache[key] }) { return known }
        let compressed = types.isCompressed(fileName: name)
        state.withLock { state in
            if state.typeCache.count >= Self.typeCacheLimit { state.typeCache.removeAll() }
            state.typeCache[key] = compressed
        }
        return compressed
    }
}
