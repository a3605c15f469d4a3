import Synchronization

/// Cancels a question asked with ``DesktopNotifier/ask(_:accept:decline:timeout:cancellation:shown:)``
/// from another thread: the question ends with ``NotificationAnswer/cancelled`` and its
/// notification is closed.
public final class NotificationCancellation: Sendable {
    private let state = Mutex<(cancelled: Bool, handlers: [@Sendable () -> Void])>((false, []))

    /// A cancellation not cancelled yet.
    public init() {}

    /// Cancels (once; later calls do nothing).
    public func cancel() {
        let handlers = state.withLock { state in
            guard !state.cancelled else { return [@Sendable () -> Void]() }
            state.cancelled = true
            defer { state.handlers.removeAll() }
            return state.handlers
        }
        for handler in handlers { handler() }
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Runs `handler` on cancellation (at once when already cancelled).
    func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let now = state.withLock { state in
            if state.cancelled { return true }
            state.handlers.append(handler)
            return false
        }
        if now { handler() }
    }
}
