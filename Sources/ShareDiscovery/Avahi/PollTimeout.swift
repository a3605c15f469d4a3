internal import CShareAvahi
internal import Glibc

/// Owns one `AvahiTimeout` on a poll: a one-shot timer whose callback runs on the poll's
/// thread with the lock held. Freed (and so cancelled) in deinit.
///
/// > Warning: Create and release it only on the poll thread or under the poll's lock.
final class PollTimeout {
    /// The poll API the timeout belongs to (needed to free it).
    private let api: UnsafePointer<AvahiPoll>
    /// The C timeout.
    private let pointer: OpaquePointer

    /// Arms a timer that fires once, `delay` from now.
    init(
        poll: ThreadedPoll, delay: Duration, callback: AvahiTimeoutCallback, userdata: UnsafeMutableRawPointer
    ) {
        api = poll.api
        var when = Self.wallClock(after: delay)
        guard let timeoutNew = api.pointee.timeout_new, let pointer = timeoutNew(api, &when, callback, userdata) else {
            preconditionFailure("avahi timeout_new failed (out of memory)")
        }
        self.pointer = pointer
    }

    deinit {
        api.pointee.timeout_free?(pointer)
    }

    /// Avahi's simple poll measures timeouts against gettimeofday().
    private static func wallClock(after delay: Duration) -> timeval {
        var now = timeval()
        gettimeofday(&now, nil)
        let (seconds, attoseconds) = delay.components
        let micros = Int(now.tv_usec) + Int(attoseconds / 1_000_000_000_000)
        return timeval(tv_sec: now.tv_sec + Int(seconds) + micros / 1_000_000, tv_usec: micros % 1_000_000)
    }
}
