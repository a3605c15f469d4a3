import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// Runs a handler when one of `signals` arrives (instead of the default of dying).
final class SignalWatcher: Sendable {
    // Dispatch sources are thread-safe; they are only created here and cancelled once.
    nonisolated(unsafe) private let sources: [any DispatchSourceSignal]

    init(signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
    }
}
