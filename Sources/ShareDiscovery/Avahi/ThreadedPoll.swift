internal import CShareAvahi

/// Owns an `AvahiThreadedPoll`: the event loop thread on which every Avahi callback runs.
///
/// > Warning: Callbacks run on the poll's thread *with its lock held*. Code in a callback
/// > must never call ``withLock(_:)`` (the lock is not recursive: it would deadlock) nor
/// > ``stop()``. Every other thread must touch Avahi objects only inside ``withLock(_:)``.
///
/// `@unchecked Sendable`: the pointer is immutable; the C object synchronizes itself
/// (`avahi_threaded_poll_lock`), and `started` is only changed by `start()` and `stop()`,
/// which the owning core calls from its own init and its once-only `close()`.
final class ThreadedPoll: @unchecked Sendable {
    /// The C event loop; freed in deinit.
    private let pointer: OpaquePointer
    /// Whether the helper thread runs, so deinit and `stop()` know whether to stop it.
    private var started = false

    /// Creates the event loop without starting its thread.
    init() throws(DiscoveryError) {
        guard let pointer = avahi.avahi_threaded_poll_new() else {
            throw .avahi(operation: "create its event loop", code: .noMemory)
        }
        self.pointer = pointer
    }

    deinit {
        // Stops the thread if it still runs, then frees the loop.
        avahi.avahi_threaded_poll_free(pointer)
    }

    /// The abstract poll API handed to `avahi_client_new` and used for timeouts.
    var api: UnsafePointer<AvahiPoll> {
        guard let api = avahi.avahi_threaded_poll_get(pointer) else {
            preconditionFailure("avahi_threaded_poll_get returned NULL")
        }
        return api
    }

    /// Starts the helper thread.
    func start() throws(DiscoveryError) {
        guard avahi.avahi_threaded_poll_start(pointer) >= 0 else {
            throw .avahi(operation: "start its event loop thread", code: .failure)
        }
        started = true
    }

    /// Stops and joins the helper thread. Must not be called from a callback.
    func stop() {
        guard started else { return }
        started = false
        _ = avahi.avahi_threaded_poll_stop(pointer)
    }

    /// Runs `body` with the loop locked, so no callback runs meanwhile.
    /// Must not be called from a callback (see the type's warning).
    func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        avahi.avahi_threaded_poll_lock(pointer)
        defer { avahi.avahi_threaded_poll_unlock(pointer) }
        return try body()
    }
}
