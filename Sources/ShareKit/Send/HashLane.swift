import Foundation
import ShareTLS
import Synchronization

/// The SHA-256 of one large file, computed on a thread of its own from the arrays given to it, in
/// the order given.
///
/// SHA-256 costs ~0.6 CPU-s per GiB on this machine kind, more than everything else the sender's
/// disk thread does to read a large file. With the hash on a thread of its own, the sender's
/// busiest thread is the one that encrypts, and a sender with the cores can feed a faster link
/// (docs/PERFORMANCE.md, "Where the time goes"). Small files are hashed where they are read: a
/// hand-over per file would cost more than their hash.
///
/// The arrays are shared, not copied (they are values): the lane holds each until it is hashed,
/// through a ``BoundedQueue`` of at most ``budget`` bytes besides the array being hashed;
/// ``update(_:)`` waits for room, so the lane never falls further behind. The thread ends with
/// ``finalize()``, or when the lane is dropped.
final class HashLane: Sendable {
    /// Files of at least this many bytes are hashed on a lane (the size from which the receiver
    /// also writes past the page cache).
    static let minimumFileBytes: UInt64 = 8 << 20
    /// Bytes given to the lane and waiting to be hashed, at most (one more array passes when none
    /// wait): with the array being hashed, two of the reader's 1 MiB chunks.
    static let budget = 1 << 20

    private let work = Work()

    /// Starts the lane's thread (named `name`), continuing `state`: a fresh hash, or the hash of
    /// the part of the file the receiver holds already.
    init(continuing state: SHA256 = SHA256(), name: String) {
        let work = self.work
        BlockingWork.start(name) { work.run(continuing: state) }
    }

    deinit { work.queue.cancel() }

    /// Adds `bytes` to the hash, waiting while ``budget`` bytes wait to be hashed.
    func update(_ bytes: [UInt8]) { work.queue.push(bytes, cost: bytes.count) }

    /// Waits until every array given is hashed, ends the thread and returns the digest.
    func finalize() -> [UInt8] {
        work.queue.close()
        work.finished.wait()
        return work.digest.withLock { $0 }
    }

    /// What the lane's thread and its users share (the thread holds this, not the lane, so a
    /// dropped lane cancels the queue and the thread ends).
    private final class Work: Sendable {
        let queue = BoundedQueue<[UInt8]>(maxCost: HashLane.budget)
        let finished = DispatchSemaphore(value: 0)
        let digest = Mutex<[UInt8]>([])

        /// Hashes what the queue hands over until it is closed (or cancelled), then keeps the digest.
        func run(continuing state: SHA256) {
            var hash = state
            while let bytes = queue.pop() { hash.update(bytes) }
            let result = hash.finalize()
            digest.withLock { $0 = result }
            finished.signal()
        }
    }
}
