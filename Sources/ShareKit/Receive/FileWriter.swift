import ShareSystem
import Foundation
import ShareDocuments
import ShareTLS
import ShareWire
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The receiver's disk thread: writes arriving file content into the staging area, hashing it as
/// it goes, and checks each file's SHA-256 when it ends.
///
/// The network thread decrypts and decodes while this thread hashes and writes, so both cores
/// work. A queue bounded in bytes between them keeps memory flat whatever the file size, and the
/// receiver's ``WriterQueueBudget`` bounds what all transfers' queues hold together.
final class FileWriter: Sendable {
    /// What went wrong on the disk thread; the first failure stops all later work.
    enum Failure: Error, Sendable {
        case hashMismatch(path: String)
        case storage(ReceiveError)
    }

    private enum Operation: Sendable {
        /// `hashed`: the network thread hashes this file's bytes (``hashesOnNetworkThread``).
        case open(fileIndex: Int, offset: UInt64, hashed: Bool)
        case write([UInt8])
        /// `digest`: the SHA-256 the network thread computed over the bytes it handed over, if it did.
        case close(fileIndex: Int, expected: [UInt8]?, digest: [UInt8]?)
        case finish
    }

    /// Files of at most this many bytes (received from their start) are hashed on the network
    /// thread as their bytes are handed over, the rest on the disk thread as they are written.
    ///
    /// For many small files the disk thread is the bottleneck (creating each file costs more than
    /// its bytes) while the network thread waits for data much of the time: hashing them there
    /// takes ~10 % off the disk thread's work for the 10,000-file tree (docs/PERFORMANCE.md).
    /// Large files keep decrypting on one core and hashing and writing on the other. Either way the
    /// hash is over exactly the arrays that are then written.
    static let hashesOnNetworkThread: UInt64 = 256 << 10

    /// Operations are handed over in batches of about this many bytes (or operations), so the
    /// threads meet once per batch rather than three times per small file.
    static let batchBytes = 256 << 10
    static let batchOperations = 256

    /// Bytes of content allowed in flight between the threads (of this transfer; the
    /// ``WriterQueueBudget`` bounds all transfers together).
    static let queueBudget = 8 << 20
    /// Start kernel writeback after this many bytes of a file, so the final sync has little left.
    static let writebackInterval: Int64 = 16 << 20

    /// Batches of operations, with the bytes each took from the budget.
    private let queue = BoundedQueue<(operations: [Operation], cost: Int)>(maxCost: FileWriter.queueBudget)
    private let budget: WriterQueueBudget
    private let account: WriterQueueBudget.Account
    /// What the network thread collected and has not handed over yet.
    private struct Pending {
        var operations: [Operation] = []
        var bytes = 0
        /// The small file whose bytes the network thread is hashing (``hashesOnNetworkThread``).
        var hashing: (fileIndex: Int, hasher: SHA256)?
    }

    /// Operations collected on the network thread, not yet handed over.
    private let pending = Mutex(Pending())
    private let state: Mutex<(failure: Failure?, digests: [UInt8], written: Int64)>
    private let done = DispatchSemaphore(value: 0)
    private let running = DispatchGroup()
    /// What a continued area already holds, by file index.
    private let held: [Int: HeldFile]
    // The staging area and manifest are used by the disk thread only, between `start` and `finish`.
    nonisolated(unsafe) private let staging: StagingArea
    private let manifest: Manifest
    /// Where written arrays go back for the connection's next payloads.
    private let payloadBuffers: PayloadBuffers?

    init(
        staging: StagingArea, manifest: Manifest, held: [HeldFile] = [], budget: WriterQueueBudget = WriterQueueBudget(),
        payloadBuffers: PayloadBuffers? = nil
    ) {
        self.payloadBuffers = payloadBuffers
        self.budget = budget
        self.account = budget.open()
        self.staging = staging
        self.manifest = manifest
        self.held = Dictionary(held.map { ($0.fileIndex, $0) }, uniquingKeysWith: { first, _ in first })
        self.state = Mutex((nil, [], 0))
    }

    /// Starts the disk thread.
    func start() {
        running.enter()
        BlockingWork.start("share.writer") { [self] in
            defer { running.leave() }
            run()
        }
    }

    /// The first failure so far, if any (checked by the network thread after each frame).
    var failure: Failure? { state.withLock { $0.failure } }

    /// Bytes written to disk so far.
    var bytesWritten: Int64 { state.withLock { $0.written } }

    /// Starts file `fileIndex` afresh (`offset` 0) or after the `offset` bytes held of it.
    func open(fileIndex: Int, offset: UInt64 = 0) {
        let size = manifest.entries[manifest.fileEntryIndices[fileIndex]].size
        let hashed = offset == 0 && size <= Self.hashesOnNetworkThread
        add(cost: 0) { pending in
            pending.hashing = hashed ? (fileIndex, SHA256()) : nil
            return .open(fileIndex: fileIndex, offset: offset, hashed: hashed)
        }
    }

    func write(_ bytes: [UInt8]) {
        add(cost: bytes.count) { pending in
            pending.hashing?.hasher.update(bytes)
            return .write(bytes)
        }
    }

    /// Ends file `fileIndex`; its SHA-256 must be `expected` (nil: whatever it is, as from a LocalSend
    /// sender that gave none; it is still computed and reported by ``finish()``).
    func close(fileIndex: Int, expected: [UInt8]?) {
        add(cost: 0) { pending in
            guard let hashing = pending.hashing, hashing.fileIndex == fileIndex else {
                return .close(fileIndex: fileIndex, expected: expected, digest: nil)
            }
            pending.hashing = nil
            return .close(fileIndex: fileIndex, expected: expected, digest: hashing.hasher.finalize())
        }
    }

    /// Hands over what was collected; the network thread calls it before it waits for more data.
    func flush() {
        let batch = pending.withLock { pending in
            defer { (pending.operations, pending.bytes) = ([], 0) }
            return (operations: pending.operations, bytes: pending.bytes)
        }
        guard !batch.operations.isEmpty else { return }
        let cost = max(batch.bytes, 1)
        // Waits while all transfers' queues hold the receiver's budget (and this one holds some).
        guard budget.take(cost, for: account) else { return }
        if !queue.push((batch.operations, cost), cost: cost) { budget.give(cost, from: account) }
    }

    private func add(_ operation: Operation, cost: Int) { add(cost: cost) { _ in operation } }

    /// Adds the operation `make` returns (under the lock, on the network thread) to the pending batch.
    private func add(cost: Int, _ make: (inout Pending) -> Operation) {
        let full = pending.withLock { pending in
            pending.operations.append(make(&pending))
            pending.bytes += cost
            return pending.bytes >= Self.batchBytes || pending.operations.count >= Self.batchOperations
        }
        if full { flush() }
    }

    /// Waits until everything queued is written; returns each file's verified SHA-256 (one after
    /// another), or the failure.
    func finish() -> Result<[UInt8], Failure> {
        add(.finish, cost: 0)
        flush()
        done.wait()
        return state.withLock { state in
            if let failure = state.failure { return .failure(failure) }
            return .success(state.digests)
        }
    }

    /// Stops the disk thread without waiting for queued work.
    func cancel() {
        queue.cancel()
        budget.close(account)
    }

    /// Writes what was received and queued so far, then stops the disk thread and waits until it let
    /// go of the staging area: a transfer kept for resumption keeps every byte that arrived, not only
    /// what had reached the disk when the connection failed. (Stops at once after a failure.)
    func drain() {
        add(.finish, cost: 0)
        flush()
        running.wait()
    }

    /// Stops the disk thread and waits until it let go of the staging area (what it wrote stays).
    func stop() {
        queue.cancel()
        running.wait()
    }

    private func run() {
        var fd: Int32 = -1
        var entry: ManifestEntry?
        var hasher = SHA256()
        // Whether this disk thread hashes the current file (the network thread hashes small ones).
        var hashing = true
        var hasFinalMode = false
        var output = FileOutput()
        defer {
            if fd >= 0 {
                // What was handed over is written (a kept transfer continues after it).
                _ = output.finish()
                Glibc.close(fd)
            }
            // What is still queued is dropped or was written: the budget gets all of it back.
            budget.close(account)
            done.signal()
        }
        func fail(_ failure: Failure) {
            state.withLock { if $0.failure == nil { $0.failure = failure } }
            queue.cancel()
        }
        while let (operations, cost) = queue.pop() {
            defer { budget.give(cost, from: account) }
            // The arrays written in this batch, given back once nothing else here holds them.
            var written: [[UInt8]] = []
            defer {
                _ = consume operations
                while let array = written.popLast() { payloadBuffers?.giveBack(array) }
            }
            for operation in operations {
            switch operation {
            case .open(let index, let offset, let hashed):
                let current = manifest.entries[manifest.fileEntryIndices[index]]
                let continued = offset > 0 ? held[index] : nil
                guard offset == 0 || continued?.offset == offset else {
                    fail(.storage(.storageFailed(operation: "continuing", path: current.path, reason: "it does not hold \(offset) bytes of it")))
                    return
                }
                do {
                    (fd, hasFinalMode) = try staging.openFile(current, at: offset)
                } catch {
                    fail(.storage(error))
                    return
                }
                entry = current
                hashing = !hashed
                if hashing { hasher = continued?.hasher ?? SHA256() }
                output.open(fd, size: current.size, offset: offset)
            case .write(let bytes):
                guard fd >= 0, let current = entry else { continue }
                let problem = bytes.withUnsafeBytes { buffer in
                    if hashing { hasher.update(buffer) }
                    return output.write(buffer)
                }
                if let problem {
                    fail(.storage(.storageFailed(operation: "writing", path: current.path, reason: POSIX.errorText(problem))))
                    return
                }
                state.withLock { $0.written += Int64(bytes.count) }
                if payloadBuffers != nil { written.append(bytes) }
            case .close(_, let expected, let hashedDigest):
                guard let current = entry else { continue }
                let digest: [UInt8]
                if hashing {
                    digest = hasher.finalize()
                    hasher = SHA256()
                } else if let hashedDigest {
                    digest = hashedDigest
                } else {
                    fail(.hashMismatch(path: current.path))
                    return
                }
                if let expected, digest != expected {
                    fail(.hashMismatch(path: current.path))
                    return
                }
                if let problem = output.finish() {
                    fail(.storage(.storageFailed(operation: "writing", path: current.path, reason: POSIX.errorText(problem))))
                    return
                }
                do {
                    try staging.finishFile(fd, entry: current, hasFinalMode: hasFinalMode)
                } catch {
                    fd = -1
                    fail(.storage(error))
                    return
                }
                fd = -1
                entry = nil
                state.withLock { $0.digests.append(contentsOf: digest) }
            case .finish:
                return
            }
            }
        }
    }
}
