import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Runs a handler when one of `signals` arrives (instead of the default of dying), until
/// ``cancel()``.
///
/// Each signal has one dispatch source for the life of the process, shared by every watcher:
/// libdispatch installs its own handler once per signal, and anything that sets the signal's
/// disposition afterwards (a second `signal(SIG_IGN)`) silences it for good. A signal that comes
/// while no watcher handles it does what it does by default (it ends the process).
final class SignalWatcher: Sendable {
    private let id: Int

    /// Runs `handler` instead of the signal's default.
    init(signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        id = SignalHub.shared.add(signals: signals, cleanupOnly: false, handler: handler)
    }

    /// Runs `handler` first, then lets the signal do what it would have done without it: its
    /// default, or what another watcher does (cleanup that must happen however the process ends).
    init(cleanupOn signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        id = SignalHub.shared.add(signals: signals, cleanupOnly: true, handler: handler)
    }

    /// Stops calling the handler; the signals stay caught (not back to their default).
    func cancel() {
        SignalHub.shared.remove(id)
    }
}

/// The process's signal sources and the watchers' handlers.
private final class SignalHub: Sendable {
    static let shared = SignalHub()

    private struct State {
        var next = 0
        var handlers: [Int: (signals: [Int32], cleanupOnly: Bool, handler: @Sendable (Int32) -> Void)] = [:]
        var sources: [Int32: any DispatchSourceSignal] = [:]
    }

    private let state = Mutex(State())

    func add(signals: [Int32], cleanupOnly: Bool, handler: @escaping @Sendable (Int32) -> Void) -> Int {
        state.withLock { state in
            for number in signals where state.sources[number] == nil {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { [self] in deliver(number) }
                source.resume()
                state.sources[number] = source
            }
            state.next += 1
            state.handlers[state.next] = (signals, cleanupOnly, handler)
            return state.next
        }
    }

    func remove(_ id: Int) {
        state.withLock { _ = $0.handlers.removeValue(forKey: id) }
    }

    private func deliver(_ number: Int32) {
        let watching = state.withLock { $0.handlers.values.filter { $0.signals.contains(number) } }
        for watcher in watching.sorted(by: { $0.cleanupOnly && !$1.cleanupOnly }) { watcher.handler(number) }
        if watching.allSatisfy(\.cleanupOnly) {
            // Nobody handles it: the default (for SIGINT, SIGTERM and SIGHUP, the end of the process).
            signal(number, SIG_DFL)
            kill(getpid(), number)
        }
    }
}
