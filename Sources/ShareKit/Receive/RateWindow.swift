import ShareWire

/// The rate rule of an incoming connection while the sender is expected to send (its offer
/// arriving, or its data): over each window of ``ReceiverConfiguration/rateWindow`` it must send
/// at least ``ReceiverConfiguration/minimumRate`` bytes a second, so a peer that drips data is
/// ended even though it is never silent long enough to time out.
///
/// The rule reads no clock itself: each call is given the instant it is made at (`now`, the
/// continuous clock's by default), as ``PromptLimiter`` and ``AdmissionTable`` are, so a test can
/// walk through windows without waiting for them.
struct RateWindow {
    /// How long one window lasts.
    let length: Duration
    /// The fewest bytes a second the sender must keep up.
    let minimumRate: UInt64
    /// The start of the current window and the bytes received before it.
    private var current: (start: ContinuousClock.Instant, bytes: UInt64)?

    init(length: Duration, minimumRate: UInt64) {
        self.length = length
        self.minimumRate = minimumRate
    }

    /// What the next read waits for.
    struct Wait {
        /// The longest the read waits.
        var timeout: Duration?
        /// Whether the wait ends with the window rather than with the silence timeout.
        var endsWithWindow: Bool
    }

    /// What a read found about the window.
    enum Check {
        /// The window is still open.
        case open
        /// The window ended with enough bytes; the next one started.
        case passed
        /// The window ended with too few bytes: what the sender is told.
        case tooSlow(PeerError)
    }

    /// Opens a window unless one is open (`bytesReceived` bytes have arrived so far); the next
    /// read waits at most until the window ends, or `receiveTimeout`, whichever comes first.
    mutating func wait(
        within receiveTimeout: Duration?, bytesReceived: UInt64, now: ContinuousClock.Instant = .now
    ) -> Wait {
        let window = current ?? (now, bytesReceived)
        current = window
        let windowLeft = max(window.start + length - now, .milliseconds(1))
        return Wait(
            timeout: min(receiveTimeout ?? windowLeft, windowLeft),
            endsWithWindow: receiveTimeout.map { windowLeft < $0 } ?? true)
    }

    /// Checks the window after a read, with `bytesReceived` bytes arrived so far.
    mutating func check(bytesReceived: UInt64, now: ContinuousClock.Instant = .now) -> Check {
        guard let window = current, now - window.start >= length else { return .open }
        let received = bytesReceived - window.bytes
        let seconds = length.components.seconds
        if received < minimumRate * UInt64(seconds) {
            return .tooSlow(
                PeerError(
                    .timedOut,
                    "the sender is too slow: \(received) bytes in \(seconds) s; the receiver needs at least "
                        + "\(ByteCount.format(minimumRate))/s"))
        }
        current = (now, bytesReceived)
        return .passed
    }

    /// Forgets the current window: the next wait opens a new one.
    mutating func reset() {
        current = nil
    }
}
