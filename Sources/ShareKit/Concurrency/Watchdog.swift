import Dispatch
import Synchronization

/// Runs an action once after a delay unless cancelled first: the hard deadline for a peer that
/// trickles bytes just fast enough to defeat per-read timeouts (slowloris).
final class Watchdog: Sendable {
    private let state = Mutex<(fired: Bool, cancelled: Bool)>((false, false))

    /// Arms the watchdog: `action` runs after `delay` unless ``cancel()`` comes first.
    init(after delay: Duration, action: @escaping @Sendable () -> Void) {
        let nanoseconds =
            max(0, Int(delay.components.seconds) * 1_000_000_000 + Int(delay.components.attoseconds / 1_000_000_000))
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [self] in
            let fire = state.withLock { state in
                guard !state.cancelled else { return false }
                state.fired = true
                return true
            }
            if fire { action() }
        }
    }

    /// Disarms the watchdog (no effect once it fired).
    func cancel() {
        state.withLock { $0.cancelled = true }
    }

    /// Whether the action ran.
    var fired: Bool { state.withLock { $0.fired } }
}
