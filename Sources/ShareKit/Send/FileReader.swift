internal import CShareLinux
import Foundation
import ShareDocuments
import ShareTLS
import ShareWire
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The sender's disk thread: reads every file of a send in order and hashes it (and, when ZSTD is
/// in use, compresses it where that pays: ``ChunkCompressor``), ahead of the network thread,
/// through a queue bounded in bytes.
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

    /// A reader of `prepared`; `have` is what the receiver said it holds (checked against the
    /// source); `compressor` turns the chunks into DATA payloads (nil: raw).
    init(_ prepared: PreparedSend, have: [HaveRecord] = [], compressor: ChunkCompressor? = nil) {
        self.prepared = prepared
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
    func cancel() { queue.cancel() }

    private func run() {
        var batch = Batcher(queue: queue)
        defer {
            batch.flush()
            queue.close()
        }
        let manifest = prepared.manifest
        for (index, entryIndex) in manifest.fileEntryIndices.enumerated() {
            let entry = manifest.entries[entryIndex]
            let path = prepared.sources[index]
            let flags = O_RDONLY | O_CLOEXEC | (prepared.followLinks[index] ? 0 : O_NOFOLLOW)
            let fd = open(path, flags)
            guard fd >= 0 else {
                batch.add(.failure("cannot read '\(path)': \(POSIX.errorText())"), cost: 1)
                return
            }
            defer { close(fd) }
            var info = stat()
            guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, UInt64(info.st_size) == entry.size else {
                batch.add(.failure("'\(path)' changed after it was offered; send it again"), cost: 1)
                return
            }
            if entry.size > UInt64(Self.chunkSize) { _ = posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL) }
            compressor?.startFile(path: entry.path)
            var hasher = SHA256()
            var remaining = entry.size
            var offset: UInt64 = 0
            if let record = have[index], record.offset > 0 {
                // Continue only if the bytes the receiver holds are this file's first bytes.
                let (prefix, failure) = Self.hashPrefix(fd, count: record.offset)
                if let failure {
                    batch.add(.failure("cannot read '\(path)': \(failure)"), cost: 1)
                    return
                }
                if prefix.finalizedCopy == record.sha256 {
                    hasher = prefix
                    offset = record.offset
                    remaining -= record.offset
                    if !batch.add(.resumed(fileIndex: index, offset: offset), cost: 1) { return }
                } else if lseek(fd, 0, SEEK_SET) != 0 {
                    // Another version of the file: it starts over (the receiver drops what it held).
                    batch.add(.failure("cannot read '\(path)': \(POSIX.errorText())"), cost: 1)
                    return
                }
            }
            while remaining > 0 {
                let count = Int(min(remaining, UInt64(Self.chunkSize)))
                let started = ContinuousClock.now
                var failure: Int?
                // Read straight into the new array: no zero-filling first.
                let buffer = [UInt8](unsafeUninitializedCapacity: count) { raw, initialized in
                    var filled = 0
                    while filled < count {
                        let got = POSIX.readSome(fd, UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: raw[filled...])))
                        if got <= 0 {
                            failure = got
                            break
                        }
                        filled += got
                    }
                    initialized = filled
                }
                if let got = failure {
                    let reason = got == 0 ? "it became shorter while being sent" : POSIX.errorText(Int32(-got))
                    batch.add(.failure("cannot read '\(path)': \(reason)"), cost: 1)
                    return
                }
                buffer.withUnsafeBytes { hasher.update($0) }
                remaining -= UInt64(count)
                var (encoding, payload) = (DataEncoding.raw, buffer)
                if let compressor {
                    let chunk = compressor.chunk(
                        fileIndex: UInt32(index), offset: offset, bytes: buffer, sourceTime: ContinuousClock.now - started)
                    (encoding, payload) = (chunk.encoding, chunk.bytes)
                }
                let step = Chunk.data(fileIndex: index, offset: offset, encoding: encoding, bytes: payload)
                if !batch.add(step, cost: payload.count) { return }
                offset += UInt64(count)
            }
            if fstat(fd, &info) != 0 || UInt64(info.st_size) != entry.size {
                batch.add(.failure("'\(path)' changed while being sent; send it again"), cost: 1)
                return
            }
            if !batch.add(.end(fileIndex: index, sha256: hasher.finalize()), cost: 1) { return }
        }
    }

    /// The SHA-256 of the first `count` bytes of `fd` (read from its current position, the start).
    private static func hashPrefix(_ fd: Int32, count: UInt64) -> (SHA256, failure: String?) {
        var hasher = SHA256()
        var remaining = count
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        while remaining > 0 {
            let want = Int(min(remaining, UInt64(chunkSize)))
            let got = buffer.withUnsafeMutableBytes {
                POSIX.readSome(fd, UnsafeMutableRawBufferPointer(rebasing: $0[..<want]))
            }
            if got < 0 { return (hasher, POSIX.errorText(Int32(-got))) }
            if got == 0 { return (hasher, "it became shorter while being sent") }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[..<got])) }
            remaining -= UInt64(got)
        }
        return (hasher, nil)
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
