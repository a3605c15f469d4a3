import Synchronization

/// How fast the network takes what the sender writes: the network thread reports each write, the
/// compressor (on the reader thread) reads the totals to adapt its level (``ChunkCompressor``).
public final class LinkPace: Sendable {
    /// Everything reported so far.
    public struct Totals: Sendable, Hashable {
        /// Bytes written.
        public var bytes = 0
        /// Time spent writing them, including waits for room in the socket.
        public var time = Duration.zero
        /// The socket's unacknowledged bytes after the last write, when known.
        public var queued: Int?
    }

    private let totals = Mutex(Totals())
    private let unacknowledged: (@Sendable () -> Int?)?

    /// A pace with nothing reported; `unacknowledged`, when given, tells the socket's
    /// unacknowledged bytes at any moment (``unacknowledgedNow``).
    public init(unacknowledged: (@Sendable () -> Int?)? = nil) {
        self.unacknowledged = unacknowledged
    }

    /// The socket's unacknowledged bytes now, when the pace was given a way to know: unlike
    /// ``Totals/queued``, sampled right after a write, it shows what the peer took since.
    public var unacknowledgedNow: Int? { unacknowledged?() }

    /// Reports that the network took `bytes` bytes in `time`: call it around each call that
    /// writes (or may write) to the socket, with the bytes that call handed over, and the bytes
    /// the socket then held unacknowledged (`queued`, nil when unknown).
    public func wrote(bytes: Int, in time: Duration, queued: Int? = nil) {
        totals.withLock {
            $0.bytes += bytes
            $0.time += time
            $0.queued = queued
        }
    }

    /// The totals so far.
    public var current: Totals { totals.withLock { $0 } }
}
