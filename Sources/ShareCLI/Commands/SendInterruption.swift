import ShareKit
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C and SIGTERM while something is sent or served: they cancel it (``cancellation``), and the
/// signal is kept for the exit status (128 + signal). Watches from creation until ``stop()``.
final class SendInterruption: Sendable {
    /// Cancelled by the first signal.
    let cancellation = SendCancellation()
    private let caught = Caught()
    private let watcher: SignalWatcher

    init() {
        let (cancellation, caught) = (self.cancellation, self.caught)
        watcher = SignalWatcher(signals: [SIGINT, SIGTERM]) { signal in
            caught.signal.withLock { $0 = signal }
            cancellation.cancel()
        }
    }

    /// The signal that interrupted, if one did.
    var signal: Int32? { caught.signal.withLock { $0 } }

    /// The signal, shared with the watcher's handler.
    private final class Caught: Sendable {
        let signal = Mutex<Int32?>(nil)
    }

    /// Stops watching.
    func stop() { watcher.cancel() }
}
