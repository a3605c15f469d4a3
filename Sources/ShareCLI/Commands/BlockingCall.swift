import Foundation

/// Runs blocking work (file reads, an importer that may take minutes) on a thread of its own,
/// never on Swift's cooperative pool, and awaits its result.
enum BlockingCall {
    static func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            let thread = Thread {
                do throws(E) {
                    continuation.resume(returning: .success(try body()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            thread.start()
        }
        return try result.get()
    }
}
