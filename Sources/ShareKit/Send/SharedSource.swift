import Foundation
import ShareDocuments
import ShareTLS
import Synchronization

/// Reads and hashes the files of one send once for several receivers (`share send --to a --to b`),
/// and hands the same chunks (arrays: shared, not copied) to each receiver's connection.
///
/// Give the same source to the ``SendOptions/sharedSource`` of every destination of `prepared`.
/// A destination that starts at the beginning joins the group (the first one starts its disk thread);
/// its connection takes the group's chunks from a window of at most ``window`` bytes: the fastest
/// receiver is never more than that ahead of the slowest one still in the group. When the window is
/// full and a faster receiver waits for data, the slowest ones fall out of it and read on their own
/// from where they were (``FileReader``), as does a destination that continues a kept part or
/// reconnects after a cut. One that reads on its own joins again where it reaches a chunk the window
/// still holds, if the file's bytes up to there hash the same as the group's: the hash a receiver
/// gets is always over the bytes it was sent. Compression stays per connection. The window keeps
/// the chunks every destination took until it needs the room, so one accepted a little later (its
/// receiver asked a person) starts with the group if the group has not gone further than the window.
/// Once no destination is in the group, the disk thread stops.
public final class SharedSource: @unchecked Sendable {
    // @unchecked: every stored var is guarded by `condition`; `bytesReadCounter` is atomic.

    /// One step of the group's stream. `prefix` is the hash of the file's bytes before the step.
    enum Step: Sendable {
        /// The file's bytes from `offset`, and its hash up to the end of them (`hashed`).
        case data(fileIndex: Int, offset: UInt64, bytes: [UInt8], prefix: SHA256, hashed: SHA256, readTime: Duration)
        /// The file (of `size` bytes) is complete, with this SHA-256.
        case end(fileIndex: Int, size: UInt64, prefix: SHA256, sha256: [UInt8])
        /// The file cannot be sent from `offset` on (it changed, or cannot be read).
        case failure(fileIndex: Int, offset: UInt64, message: String)

        var fileIndex: Int {
            switch self {
            case .data(let index, _, _, _, _, _), .end(let index, _, _, _), .failure(let index, _, _): index
            }
        }

        /// Where in its file the step begins.
        var startOffset: UInt64 {
            switch self {
            case .data(_, let offset, _, _, _, _), .failure(_, let offset, _): offset
            case .end(_, let size, _, _): size
            }
        }

        /// Whether a destination whose own bytes of the file up to ``startOffset`` hash as `hashed`
        /// may continue with this step.
        func continues(_ hashed: SHA256) -> Bool {
            if startOffset == 0 { return true }
            switch self {
            case .data(_, _, _, let prefix, _, _), .end(_, _, let prefix, _):
                return prefix.finalizedCopy == hashed.finalizedCopy
            case .failure: return false
            }
        }

        var cost: Int {
            if case .data(_, _, let bytes, _, _, _) = self { return bytes.count }
            return 1
        }
    }

    /// What a destination in the group gets next.
    enum Take {
        case steps([Step])
        /// It fell out of the window (or the group stopped): it reads on its own from where it is.
        case detached
        /// The group read everything and it took every step.
        case finished
    }

    private enum ReaderState { case idle, reading, done, stopped }

    /// The default ``window``.
    public static let defaultWindow = 32 << 20

    /// The most bytes the fastest destination in the group may be ahead of the slowest.
    public let window: Int
    private let prepared: PreparedSend
    private let condition = NSCondition()
    /// Kept steps; `slots[i]` is step number `base + i`; taken ones from the front are nil.
    private var slots: [Step?] = []
    private var base = 0
    /// The number of the oldest kept step.
    private var oldest = 0
    private var keptBytes = 0
    /// By file index: the number of its oldest kept step.
    private var fileStarts: [Int: Int] = [:]
    /// By destination: the number of the next step it takes.
    private var cursors: [Int: Int] = [:]
    private var nextID = 0
    private var waitingForData = 0
    private var readerWaits = false
    private var state = ReaderState.idle
    /// Where the disk thread's next step begins, and the hash of its file up to there.
    private var next = (fileIndex: 0, offset: UInt64(0), prefix: SHA256())
    private let bytesReadCounter = Atomic<UInt64>(0)

    /// A source for the destinations of `prepared`, keeping at most `window` bytes.
    public init(_ prepared: PreparedSend, window: Int = SharedSource.defaultWindow) {
        self.prepared = prepared
        self.window = window
    }

    /// The bytes read from the files so far: once by the group, plus what destinations outside the
    /// group read on their own.
    public var bytesRead: UInt64 { bytesReadCounter.load(ordering: .relaxed) }

    /// Counts bytes a destination read on its own.
    func countRead(_ bytes: Int) { bytesReadCounter.add(UInt64(bytes), ordering: .relaxed) }

    private var end: Int { base + slots.count }

    /// Joins the group at file `fileIndex`, `offset` (where a destination is), if the window still
    /// holds the step that starts there and, within a file, the file's bytes up to there hash as
    /// `hashed` (the destination's own hash of what it sent); returns the destination's number.
    /// The first join at the very start starts the disk thread.
    func join(fileIndex: Int, offset: UInt64, hashed: SHA256) -> Int? {
        condition.lock()
        defer { condition.unlock() }
        if state == .idle, fileIndex == 0, offset == 0 {
            state = .reading
            BlockingWork.start("share.shared-reader") { [self] in readAll() }
            return add(cursor: end)
        }
        if let first = fileStarts[fileIndex] {
            var number = max(first, oldest)
            while number < end, let step = slots[number - base], step.fileIndex == fileIndex, step.startOffset <= offset
            {
                if step.startOffset == offset { return step.continues(hashed) ? add(cursor: number) : nil }
                number += 1
            }
        }
        // The disk thread's next step starts there: from that step on.
        if state == .reading, next.fileIndex == fileIndex, next.offset == offset,
            offset == 0 || next.prefix.finalizedCopy == hashed.finalizedCopy
        {
            return add(cursor: end)
        }
        return nil
    }

    private func add(cursor: Int) -> Int {
        let id = nextID
        nextID += 1
        cursors[id] = cursor
        return id
    }

    /// The next steps for destination `id`, waiting for the disk.
    func take(_ id: Int) -> Take {
        condition.lock()
        defer { condition.unlock() }
        while true {
            guard let cursor = cursors[id] else { return .detached }
            if cursor < end {
                var taken: [Step] = []
                var bytes = 0
                var number = cursor
                while number < end, bytes < FileReader.batchBytes, taken.count < FileReader.batchSteps {
                    guard let step = slots[number - base] else {
                        preconditionFailure("a destination's step was dropped")
                    }
                    taken.append(step)
                    bytes += step.cost
                    number += 1
                }
                cursors[id] = number
                if readerWaits { condition.broadcast() }
                return .steps(taken)
            }
            switch state {
            case .done:
                cursors[id] = nil
                condition.broadcast()
                return .finished
            case .stopped:
                cursors[id] = nil
                return .detached
            case .idle, .reading:
                waitingForData += 1
                if readerWaits { condition.broadcast() }
                condition.wait()
                waitingForData -= 1
            }
        }
    }

    /// Destination `id` leaves the group (it is done, failed, or was cancelled).
    func leave(_ id: Int) {
        condition.lock()
        cursors[id] = nil
        condition.broadcast()
        condition.unlock()
    }

    /// The disk thread: every file in order, each chunk read and hashed once.
    private func readAll() {
        defer {
            condition.lock()
            if state == .reading { state = .done }
            condition.broadcast()
            condition.unlock()
        }
        for index in prepared.manifest.fileEntryIndices.indices {
            let file: SourceFile
            switch SourceFile.open(prepared, index: index) {
            case .success(let opened): file = opened
            case .failure(let failure):
                append(.failure(fileIndex: index, offset: 0, message: failure.message))
                return
            }
            var hasher = SHA256()
            var offset: UInt64 = 0
            while offset < file.size {
                let count = Int(min(file.size - offset, UInt64(FileReader.chunkSize)))
                let started = ContinuousClock.now
                let bytes: [UInt8]
                switch file.read(count) {
                case .success(let read): bytes = read
                case .failure(let failure):
                    append(.failure(fileIndex: index, offset: offset, message: failure.message))
                    return
                }
                countRead(count)
                let prefix = hasher
                bytes.withUnsafeBytes { hasher.update($0) }
                let step = Step.data(
                    fileIndex: index, offset: offset, bytes: bytes, prefix: prefix, hashed: hasher,
                    readTime: .now - started)
                guard append(step) else { return }
                offset += UInt64(count)
            }
            if let failure = file.changed() {
                append(.failure(fileIndex: index, offset: offset, message: failure.message))
                return
            }
            guard append(.end(fileIndex: index, size: file.size, prefix: hasher, sha256: hasher.finalizedCopy)) else {
                return
            }
        }
    }

    /// Adds a step once the window has room; false when no destination is left in the group (the
    /// disk thread stops).
    @discardableResult
    private func append(_ step: Step) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let cost = step.cost
        while true {
            if cursors.isEmpty {
                state = .stopped
                condition.broadcast()
                return false
            }
            // Drop what every destination took, as far as room is needed.
            while keptBytes > 0, keptBytes + cost > window, oldest < end, cursors.values.allSatisfy({ $0 > oldest }) {
                dropOldest()
            }
            if keptBytes == 0 || keptBytes + cost <= window { break }
            if waitingForData > 0 {
                // A faster destination waits for data: the slowest fall out of the window.
                for (id, cursor) in cursors where cursor <= oldest { cursors[id] = nil }
                continue
            }
            readerWaits = true
            condition.wait()
            readerWaits = false
        }
        if fileStarts[step.fileIndex] == nil { fileStarts[step.fileIndex] = end }
        switch step {
        case .data(let index, let offset, let bytes, _, let hashed, _):
            next = (index, offset + UInt64(bytes.count), hashed)
        case .end(let index, _, _, _):
            next = (index + 1, 0, SHA256())
        case .failure:
            break
        }
        slots.append(step)
        keptBytes += cost
        if waitingForData > 0 { condition.broadcast() }
        return true
    }

    private func dropOldest() {
        guard let step = slots[oldest - base] else { return }
        slots[oldest - base] = nil
        keptBytes -= step.cost
        if fileStarts[step.fileIndex] == oldest {
            let next = oldest + 1
            if next < end, slots[next - base]?.fileIndex == step.fileIndex {
                fileStarts[step.fileIndex] = next
            } else {
                fileStarts[step.fileIndex] = nil
            }
        }
        oldest += 1
        let dropped = oldest - base
        if dropped > 64 && dropped * 2 > slots.count {
            slots.removeFirst(dropped)
            base = oldest
        }
    }
}
