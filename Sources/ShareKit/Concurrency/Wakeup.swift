import ShareTransport

/// A descriptor that becomes readable once ``signal()`` is called, so a thread that waits in
/// `poll(2)` (on a terminal, on standard output) can also be woken by another thread (a user's
/// answer, a cancellation). The command line's handle on the transport's ``WakeSignal``.
///
/// The pipe is closed when the wakeup is deallocated.
public final class Wakeup: Sendable {
    private let wake: WakeSignal

    /// Creates an unsignalled wakeup.
    public init() {
        wake = WakeSignal()
    }

    /// The descriptor to poll for `POLLIN`.
    public var descriptor: Int32 { wake.descriptor }

    /// Whether ``signal()`` was called.
    public var isSignalled: Bool { wake.isSignalled }

    /// Wakes every waiter, now and later (once signalled, it stays signalled).
    public func signal() { wake.signal() }

    /// Waits until the signal is given or `timeout` passes (nil: forever); true when signalled.
    public func wait(timeout: Duration?) -> Bool { wake.wait(timeout: timeout) }
}
