import Foundation
import Synchronization

import ShareSystem

#if canImport(Glibc)
import Glibc
#endif

/// Makes durable exactly the files and folders one transfer wrote, and nothing else: a commit's
/// way on a busy disk (``StagingArea``, docs/ARCHITECTURE.md "Commit").
///
/// Descriptors are handed over as the commit opens them, and a few threads `fsync` and close them
/// meanwhile; ``finish()`` hands over what is left and waits until all of it is on disk. Unlike one
/// `syncfs` of the whole filesystem, this never waits for data other programs have written to the
/// same disk. Several syncs wait at once, so the block layer can merge their requests and cache
/// flushes; descriptors go to the threads in batches (one hand-off per ``batchSize``), and at most
/// ``maxOpen`` wait at once.
final class SyncQueue: Sendable {
    /// One file or folder to make durable.
    struct Item: Sendable {
        let fd: Int32
        /// Where it is, for the error message (and the test hook).
        let path: String
        /// Whether a failed sync is ignored (a folder above the inbox, perhaps on a filesystem that
        /// cannot sync folders).
        var mayFail = false
    }

    /// Threads that sync at once, per commit: on a busy disk each `fsync` mostly waits (for its
    /// writes and a cache flush behind the other program's queued writeback), so many wait at once.
    static let threads = 16
    /// Descriptors handed to the threads at once.
    static let batchSize = 16
    /// Descriptors open and waiting at most.
    static let maxOpen = 256

    private struct State {
        var pending: [Item] = []
        var started = false
        /// After ``finish()``: later items are synced on the caller's thread.
        var finished = false
        /// After ``cancel()``: nothing more is synced, only closed.
        var cancelled = false
        var failure: ReceiveError?
        /// Every path synced, in the order the syncs ended (only when `recordsPaths`).
        var synced: [String] = []
    }

    private let queue = BoundedQueue<[Item]>(maxCost: SyncQueue.maxOpen)
    private let state = Mutex(State())
    private let running = DispatchGroup()
    private let recordsPaths: Bool

    /// With `recordsPaths`, ``syncedPaths`` lists every path synced (a test hook).
    init(recordsPaths: Bool = false) {
        self.recordsPaths = recordsPaths
    }

    /// The paths synced so far (empty unless created with `recordsPaths`).
    var syncedPaths: [String] { state.withLock { $0.synced } }

    /// Notes that `path` was made durable some other way (`syncfs`), for ``syncedPaths``.
    func record(_ path: String) {
        guard recordsPaths else { return }
        state.withLock { $0.synced.append(path) }
    }

    /// Takes `fd` (a complete file, or a folder whose entries are final) to sync and close; with
    /// `mayFail`, a failed sync is not a failure of the whole.
    func add(_ fd: Int32, path: String, mayFail: Bool = false) {
        enum Next { case wait, push([Item]), syncHere, closeHere }
        let next: Next = state.withLock { state in
            if state.cancelled { return .closeHere }
            if state.finished { return .syncHere }
            state.pending.append(Item(fd: fd, path: path, mayFail: mayFail))
            if !state.started {
                // Under the lock, so a `finish()` on another thread waits for these threads.
                state.started = true
                start()
            }
            guard state.pending.count >= Self.batchSize else { return .wait }
            defer { state.pending = [] }
            return .push(state.pending)
        }
        switch next {
        case .wait: break
        case .push(let batch): push(batch)
        case .syncHere:
            sync(fd, path: path, mayFail: mayFail)
            close(fd)
        case .closeHere: close(fd)
        }
    }

    /// Syncs `fd` now, on this thread (it stays open).
    func sync(_ fd: Int32, path: String, mayFail: Bool = false) {
        let failed = fsync(fd) != 0
        let reason = failed ? POSIX.errorText() : ""
        state.withLock { state in
            if failed {
                if state.failure == nil && !mayFail {
                    state.failure = .storageFailed(operation: "syncing", path: path, reason: reason)
                }
            } else if recordsPaths {
                state.synced.append(path)
            }
        }
    }

    /// Waits until everything handed over is on disk; returns the first failure, if any. Items
    /// added later are synced at once on the caller's thread.
    ///
    /// What is left is spread over all the threads: a small transfer's few files and folders are
    /// synced at once, not one after another, so its commit waits for one round of syncs.
    func finish() -> ReceiveError? {
        let left = state.withLock { state in
            state.finished = true
            defer { state.pending = [] }
            return state.pending
        }
        let share = (left.count + Self.threads - 1) / Self.threads
        for start in stride(from: 0, to: left.count, by: max(share, 1)) {
            push(Array(left[start..<min(start + share, left.count)]))
        }
        queue.close()
        running.wait()
        return state.withLock { $0.failure }
    }

    /// Closes everything handed over without syncing what is still waiting (the transfer failed).
    /// Safe to call more than once.
    func cancel() {
        let batch = state.withLock { state in
            state.cancelled = true
            defer { state.pending = [] }
            return state.pending
        }
        for item in batch { close(item.fd) }
        queue.close()
    }

    private func push(_ batch: [Item]) {
        if !queue.push(batch, cost: batch.count) {
            for item in batch { close(item.fd) }
        }
    }

    private func start() {
        for _ in 0..<Self.threads {
            running.enter()
            BlockingWork.start("share.sync", stackSize: 256 << 10) { [self] in
                defer { running.leave() }
                while let batch = queue.pop() {
                    for item in batch {
                        if !state.withLock({ $0.cancelled }) { sync(item.fd, path: item.path, mayFail: item.mayFail) }
                        close(item.fd)
                    }
                }
            }
        }
    }
}
