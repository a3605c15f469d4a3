import Foundation
import ShareDocuments
import ShareTLS
import ShareWire
import Synchronization

/// The sender's disk thread: reads every file of a send in order and hashes it (and, when ZSTD is
/// in use, compresses it where that pays: ``ChunkCompressor``), ahead of the network thread,
/// through a queue bounded in bytes. With a ``SharedSource`` (several destinations), it takes the
/// bytes and hashes the group read wherever it can (``SourceCursor``) and compresses them for its
/// own connection.
final class FileReader: Sendable {
    /// One step of the stream the network thread turns into frames.
    enum Chunk: Sendable {
        /// File content from `offset` on: the file's bytes (raw) or a zstd frame of them. Offsets
        /// are always in the file's own bytes.
        case data(fileIndex: Int, offset: UInt64, encoding: DataEncoding, bytes: [UInt8])
        /// The receiver holds the first `offset` bytes of the file and they are this file's
        /// (docs/PROTOCOL.md §7): the file continues from there.
        case resumed(fileIndex: Int, offset: UInt64)
        case end(fileIndex: Int, sha256: [UInt8])
        case failure(String)
        /// Several steps handed over at once (small files), so the threads meet once per batch.
        case batch([Chunk])
    }

    /// Small steps are handed over together once they reach this many bytes (or steps).
    static let batchBytes = 256 << 10
    static let batchSteps = 256

    /// Bytes read ahead of the network.
    static let queueBudget = 8 << 20
    /// The largest read (and DATA frame).
    static let chunkSize = 1 << 20

    private let queue = BoundedQueue<Chunk>(maxCost: FileReader.queueBudget)
    private let prepared: PreparedSend
    /// What the receiver holds, by file index.
    private let have: [Int: HaveRecord]
    /// Compresses the chunks read, when ZSTD is in use on the connection.
    private let compressor: ChunkCompressor?
    /// Reads and hashes the files once for every destination of the send (nil: this one reads alone).
    private let shared: SharedSource?
    /// This reader's number in the shared source's group while it is in it, and whether it was
    /// cancelled (so a cancelled reader leaves the group at once and holds no one back).
    private let membership = Mutex<(member: Int?, cancelled: Bool)>((nil, false))

    /// A reader of `prepared`; `have` is what the receiver said it holds (checked against the
    /// source); `compressor` turns the chunks into DATA payloads (nil: raw); `shared` reads the
    /// files for several destinations at once (nil: this reader reads them itself).
    init(_ prepared: PreparedSend, have: [HaveRecord] = [], compressor: ChunkCompressor? = nil, shared: SharedSource? = nil) {
        self.prepared = prepared
        self.shared = shared
        self.have = Dictionary(have.map { (Int($0.fileIndex), $0) }, uniquingKeysWith: { first, _ in first })
        self.compressor = compressor
    }

    /// Starts the disk thread.
    func start() {
        BlockingWork.start("share.reader") { [self] in run() }
    }

    /// The next chunk, waiting for the disk; nil after the last file.
    func next() -> Chunk? { queue.pop() }

    /// The next chunk if one is ready now; nil when the disk thread is behind or done.
    func nextIfReady() -> Chunk? { queue.tryPop() }

    /// The next chunk if one comes within `wait`; nil otherwise (or after the last file).
    func next(within wait: Duration) -> Chunk? {
        let seconds = Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18
        return queue.pop(before: Date(timeIntervalSinceNow: seconds))
    }

    /// Whether every chunk has been taken.
    var isFinished: Bool { queue.isFinished }

    /// Stops reading (the network failed).
    func cancel() {
        queue.cancel()
        let member = membership.withLock { state in
            state.cancelled = true
            return state.member
        }
        if let member { shared?.leave(member) }
    }

    /// Notes that the cursor joined the group as `member` (or left it: nil).
    private func joined(_ member: Int?) {
        let cancelled = membership.withLock { state in
            state.member = member
            return state.cancelled
        }
        if cancelled, let member { shared?.leave(member) }
    }

    private func run() {
        var batch = Batcher(queue: queue)
        var cursor = SourceCursor(prepared, have: have, shared: shared) { [self] in joined($0) }
        defer {
            cursor.leave()
            batch.flush()
            queue.close()
        }
        let manifest = prepared.manifest
        var startedFile = -1
        func start(_ index: Int) {
            guard index != startedFile else { return }
            startedFile = index
            compressor?.startFile(path: manifest.entries[manifest.fileEntryIndices[index]].path)
        }
        // What reading costs the compressor's level: every moment spent in the cursor since the last
        // chunk, so opening, checking and closing small files count too, not only their reads.
        var sourceTime = Duration.zero
        while true {
            let began = ContinuousClock.now
            guard let step = cursor.next() else { break }
            sourceTime += .now - began
            switch step {
            case .data(let index, let offset, let bytes, let readTime):
                start(index)
                var (encoding, payload) = (DataEncoding.raw, bytes)
                if let compressor {
                    // With a shared source the group reads: its own time for the chunk is what counts.
                    let spent = shared == nil ? sourceTime : readTime
                    sourceTime = .zero
                    let chunk = compressor.chunk(
                        fileIndex: UInt32(index), offset: offset, bytes: bytes, sourceTime: spent)
                    (encoding, payload) = (chunk.encoding, chunk.bytes)
                }
                if !batch.add(.data(fileIndex: index, offset: offset, encoding: encoding, bytes: payload), cost: payload.count) {
                    return
                }
            case .resumed(let index, let offset):
                start(index)
                if !batch.add(.resumed(fileIndex: index, offset: offset), cost: 1) { return }
            case .end(let index, let digest):
                start(index)
                if !batch.add(.end(fileIndex: index, sha256: digest), cost: 1) { return }
            case .failure(let message):
                batch.add(.failure(message), cost: 1)
                return
            }
        }
    }

    /// Collects steps and hands them to the queue in batches.
    private struct Batcher {
        let queue: BoundedQueue<Chunk>
        var steps: [Chunk] = []
        var bytes = 0

        /// Adds a step; returns false once the queue is closed (the network gave up).
        @discardableResult
        mutating func add(_ chunk: Chunk, cost: Int) -> Bool {
            steps.append(chunk)
            bytes += cost
            if bytes >= FileReader.batchBytes || steps.count >= FileReader.batchSteps { return flush() }
            if case .failure = chunk { return flush() }
            return true
        }

        /// Hands over what was collected.
        @discardableResult
        mutating func flush() -> Bool {
            guard !steps.isEmpty else { return true }
            let handed = steps.count == 1 ? steps[0] : .batch(steps)
            let ok = queue.push(handed, cost: max(bytes, 1))
            steps = []
            bytes = 0
            return ok
        }
    }
}
