import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Test-only: holds a process at a named point of a transfer so the tests can kill it there
/// (Tests/ShareCLITests/KillAtEveryPhaseTests.swift). With `SHARE_TEST_PAUSE_AT=<point>` in its
/// environment, the process writes `share: paused at <point>` to standard error and stops itself
/// with SIGSTOP the first time it reaches that point; the test then kills it or continues it with
/// SIGCONT. Without the variable (always, outside the tests) it does nothing, and a release build
/// (`-c release`, what users install) has none of it: the tests run debug builds.
///
/// Points: `handshake` (a connection accepted, before TLS), `offer` (the sender's HELLO read, before
/// the answer), `prompt` (the offer read, before it is decided), `data` (the first file received
/// whole), `commit` (the items synced in their entry folders, before the decision point),
/// `committed` (right after it), `import` (an import about to hand a document over), `imported`
/// (handed over, the inbox copy not yet removed).
enum TestPause {
    #if DEBUG
        private static let point = ProcessInfo.processInfo.environment["SHARE_TEST_PAUSE_AT"]
        private static let reached = Mutex(false)
    #endif

    /// Stops the process if the tests asked to stop it at `name` and it has not stopped yet.
    @inline(__always)
    static func at(_ name: String) {
        #if DEBUG
            pause(at: name)
        #endif
    }

    #if DEBUG
        private static func pause(at name: String) {
            guard point == name, !reached.withLock({ done in defer { done = true }; return done }) else { return }
            let line = Array("share: paused at \(name)\n".utf8)
            _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            raise(SIGSTOP)
        }
    #endif
}
