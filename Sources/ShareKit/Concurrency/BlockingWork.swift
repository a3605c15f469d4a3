import Foundation
import ShareSystem

/// Runs blocking work on a dedicated thread, never on Swift's cooperative pool.
enum BlockingWork {
    /// Starts `body` on a new thread named `name` (the kernel keeps its first 15 bytes, which
    /// `top -H`, `perf` and the benchmark's busiest threads show).
    static func start(_ name: String, stackSize: Int = 1 << 20, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            LinuxCalls.nameThisThread(name)
            body()
        }
        thread.name = name
        thread.stackSize = stackSize
        thread.start()
    }

    /// Runs `body` on a new thread and awaits its result.
    static func run<T: Sendable, E: Error>(_ name: String, _ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            start(name) {
                do throws(E) {
                    continuation.resume(returning: .success(try body()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }
}
