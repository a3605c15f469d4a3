import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Runs a handler when one of `signals` arrives (instead of the default of dying), until
/// ``cancel()``.
///
/// Each signal has one dispatch source for the life of the process, shared by every watcher: on
/// Linux a signal source that was cancelled leaves its signal ignored, and a new source for the
/// same signal never fires (a service that reloads creates a watcher per run).
final class SignalWatcher: Sendable {
    private let id: Int

    init(signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        id = SignalHub.shared.add(signals: signals, handler: handler)
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
        var handlers: [Int: (signals: [Int32], handler: @Sendable (Int32) -> Void)] = [:]
        var sources: [Int32: any DispatchSourceSignal] = [:]
    }

    private let state = Mutex(State())

    func add(signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) -> Int {
        state.withLock { state in
            for number in signals where state.sources[number] == nil {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { [self] in deliver(number) }
                source.resume()
                state.sources[number] = source
            }
            state.next += 1
            state.handlers[state.next] = (signals, handler)
            return state.next
        }
    }

    func remove(_ id: Int) {
        state.withLock { _ = $0.handlers.removeValue(forKey: id) }
    }

    private func deliver(_ number: Int32) {
        let handlers = state.withLock { $0.handlers.values.filter { $0.signals.contains(number) }.map(\.handler) }
        for handler in handlers { handler(number) }
    }
}
