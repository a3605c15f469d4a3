import ShareTransport

/// Cancels sends from another thread (the user pressed Ctrl-C): each send in progress tells its
/// receiver (ERROR `cancelled`) and stops.
public final class SendCancellation: Sendable {
    /// Signalled by ``cancel()``: a send waiting for its receiver wakes up on it.
    let wake = WakeSignal()

    /// A handle nothing has cancelled yet.
    public init() {}

    /// Cancels every send that uses this handle, now and later.
    public func cancel() { wake.signal() }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { wake.isSignalled }
}
