import Foundation
import ShareTLS

/// The SHA-256 of one large file, computed on a thread of its own from the arrays given to it, in
/// the order given.
///
/// SHA-256 costs ~0.6 CPU-s per GiB on this machine kind, more than everything else the sender's
/// disk thread does to read a large file. With the hash on a thread of its own, the sender's
/// busiest thread is the one that encrypts, and a sender with the cores can feed a faster link
/// (docs/PERFORMANCE.md, "Where the time goes"). Small files are hashed where they are read: a
/// hand-over per file would cost more than their hash.
///
/// The arrays are shared, not copied (they are values): the lane holds each until it is hashed, at
/// most ``budget`` bytes of them; ``update(_:)`` waits for room, so the lane never falls further
/// behind. The thread ends with ``finalize()``, or when the lane is dropped.
final class HashLane: Sendable {
    /// Files of at least this many bytes are hashed on a lane (the size from which the receiver
    /// also writes past the page cache).
    static let minimumFileBytes: UInt64 = 8 << 20
    /// Bytes given to the lane and not hashed yet, at most (one more array passes when none wait).
    static let budget = 2 << 20

    private let work: Work

    /// Starts the lane's thread (named `name`), continuing `state`: a fresh hash, or the hash of
    /// the part of the file the receiver holds already.
    init(continuing state: SHA256 = SHA256(), name: String) {
        let work = Work(state)
        self.work = work
        BlockingWork.start(name) { work.run() }
    }

    deinit { work.close() }

    /// Adds `bytes` to the hash, waiting while the lane holds ``budget`` bytes not hashed yet.
    func update(_ bytes: [UInt8]) { work.add(bytes) }

    /// Waits until every array given is hashed, ends the thread and returns the digest.
    func finalize() -> [UInt8] { work.finish() }

    /// What the lane's thread and its users share.
    private final class Work: @unchecked Sendable {
        // @unchecked: every stored property is guarded by `condition`; the hash is taken out of
        // `state` while the lane's thread hashes, so only one thread ever touches it.
        private let condition = NSCondition()
        private var queued: [[UInt8]] = []
        private var head = 0
        private var queuedBytes = 0
        /// The running hash; nil while the lane's thread is adding an array to it.
        private var state: SHA256?
        private var closed = false

        init(_ state: SHA256) {
            self.state = state
        }

        func add(_ bytes: [UInt8]) {
            condition.lock()
            defer { condition.unlock() }
            while !closed && queuedBytes > 0 && queuedBytes + bytes.count > HashLane.budget { condition.wait() }
            guard !closed else { return }
            queued.append(bytes)
            queuedBytes += bytes.count
            condition.broadcast()
        }

        func finish() -> [UInt8] {
            condition.lock()
            while !closed && (head < queued.count || state == nil) { condition.wait() }
            let result = state ?? SHA256()
            closed = true
            condition.broadcast()
            condition.unlock()
            return result.finalize()
        }

        func close() {
            condition.lock()
            closed = true
            condition.broadcast()
            condition.unlock()
        }

        func run() {
            condition.lock()
            defer { condition.unlock() }
            while true {
                while !closed && head == queued.count { condition.wait() }
                guard !closed, var running = state else { return }
                let bytes = queued[head]
                queued[head] = []
                head += 1
                if head == queued.count { (queued, head) = ([], 0) }
                state = nil
                condition.unlock()
                running.update(bytes)
                condition.lock()
                state = running
                queuedBytes -= bytes.count
                condition.broadcast()
            }
        }
    }
}
