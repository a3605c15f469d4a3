/// How far a transfer has come, for progress displays.
public struct TransferProgress: Sendable, Hashable {
    /// Content bytes sent or received so far.
    public var bytesDone: UInt64
    /// Content bytes in the whole transfer.
    public var bytesTotal: UInt64
    /// Files completed.
    public var filesDone: Int
    /// Files in the whole transfer.
    public var filesTotal: Int
    /// Time since the data started to flow.
    public var elapsed: Duration
    /// Of ``bytesDone``, the bytes the receiver already held from an earlier connection (a continued
    /// transfer): they count as done but did not take any of ``elapsed``.
    public var resumedBytes: UInt64

    /// Creates a progress value.
    public init(
        bytesDone: UInt64, bytesTotal: UInt64, filesDone: Int, filesTotal: Int, elapsed: Duration,
        resumedBytes: UInt64 = 0
    ) {
        self.resumedBytes = resumedBytes
        self.bytesDone = bytesDone
        self.bytesTotal = bytesTotal
        self.filesDone = filesDone
        self.filesTotal = filesTotal
        self.elapsed = elapsed
    }

    /// Seconds elapsed.
    public var seconds: Double {
        Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// Bytes per second so far, of the bytes that moved on this connection (0 before any time passed).
    public var bytesPerSecond: Double {
        seconds > 0 ? Double(bytesDone - min(resumedBytes, bytesDone)) / seconds : 0
    }

    /// Estimated seconds left, when a rate is known.
    public var secondsRemaining: Double? {
        let rate = bytesPerSecond
        guard rate > 0, bytesTotal >= bytesDone else { return nil }
        return Double(bytesTotal - bytesDone) / rate
    }

    /// Fraction done, 0...1.
    public var fraction: Double { bytesTotal == 0 ? 1 : min(1, Double(bytesDone) / Double(bytesTotal)) }
}
