#if canImport(Glibc)
import Glibc
#endif

/// Keeps a connection's traffic at or below a rate (`--limit-rate`): a token bucket that fills at
/// `bytesPerSecond` and holds at most a quarter of a second's worth (at least 64 KiB), so a pause
/// (a person deciding) does not allow a burst afterwards.
///
/// > Warning: Used by one connection's thread at a time.
public final class RateLimiter {
    /// The limit, in bytes per second.
    public let bytesPerSecond: UInt64
    private let capacity: Double
    private var tokens: Double
    private var last: ContinuousClock.Instant

    /// The most to write at once: a tenth of a second's worth (at least 4 KiB), so the bytes leave
    /// at a steady pace instead of in bursts followed by long pauses.
    public var slice: Int { Int(min(max(bytesPerSecond / 10, 4096), UInt64(Int32.max))) }

    /// A limiter at `bytesPerSecond` (at least 1).
    public init(bytesPerSecond: UInt64) {
        self.bytesPerSecond = max(bytesPerSecond, 1)
        capacity = max(Double(self.bytesPerSecond) / 4, 65_536)
        tokens = capacity
        last = .now
    }

    /// Accounts for `bytes` that were just sent or received, sleeping as long as it takes to stay
    /// within the rate.
    public func consume(_ bytes: Int) {
        let now = ContinuousClock.now
        let elapsed = now - last
        last = now
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        tokens = min(capacity, tokens + seconds * Double(bytesPerSecond)) - Double(bytes)
        guard tokens < 0 else { return }
        // Sleep in steps of at least a tenth of a second's worth: reading in bursts lets the kernel
        // reopen a receiver's TCP window in large steps (tiny steps leave a sender waiting on
        // window probes).
        let step = Double(bytesPerSecond) / 10
        let wait = (-tokens + step) / Double(bytesPerSecond)
        var request = timespec(tv_sec: Int(wait), tv_nsec: Int((wait - Double(Int(wait))) * 1e9))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
        last = .now
        tokens = step
    }
}
