#if canImport(Glibc)
import Glibc
#endif

/// Process-wide signal settings the transfer code relies on.
package enum ProcessSignals {
    /// A peer that disconnects mid-write must produce an EPIPE error, not kill the process.
    package static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }
}
