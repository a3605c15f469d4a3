import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Signals for fault tests, by pid: stop a process as a sleeping laptop stops (SIGSTOP), continue
/// it (SIGCONT), or kill it without warning (SIGKILL). Used through ``HostProcess`` (a `share` on a
/// simulated host: `lan.sh run` execs into it, so its pid is share's) and ``RunningShare``.
public enum ProcessControl {
    /// Stops the process (SIGSTOP) and waits (at most 2 seconds) until the kernel shows it stopped.
    ///
    /// - Throws: ``HarnessError`` when it does not stop (it had exited, or is not ours).
    public static func suspend(_ pid: Int32) throws {
        guard kill(pid, SIGSTOP) == 0 else {
            throw HarnessError(description: "cannot stop process \(pid): \(String(cString: strerror(errno)))")
        }
        try waitForState(pid, stopped: true)
    }

    /// Continues a stopped process (SIGCONT) and waits until it runs again.
    public static func resume(_ pid: Int32) throws {
        guard kill(pid, SIGCONT) == 0 else {
            throw HarnessError(description: "cannot continue process \(pid): \(String(cString: strerror(errno)))")
        }
        try waitForState(pid, stopped: false)
    }

    /// Kills the process at once (SIGKILL): no handler runs, nothing is cleaned up.
    public static func forceKill(_ pid: Int32) {
        kill(pid, SIGKILL)
    }

    /// Whether the process is stopped by a signal (state `T` in /proc/PID/stat).
    public static func isStopped(_ pid: Int32) -> Bool {
        state(pid) == "T"
    }

    /// The one-letter state of /proc/PID/stat (`R`, `S`, `T`, `Z`...), nil once the process is gone.
    static func state(_ pid: Int32) -> Character? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        return stat[close...].dropFirst().first { !$0.isWhitespace }
    }

    private static func waitForState(_ pid: Int32, stopped: Bool) throws {
        let deadline = ContinuousClock.now + .seconds(2)
        while isStopped(pid) != stopped {
            guard ContinuousClock.now < deadline, state(pid) != nil, state(pid) != "Z" else {
                let now = state(pid).map(String.init) ?? "gone"
                throw HarnessError(description: "process \(pid) did not \(stopped ? "stop" : "continue") (state \(now))")
            }
            usleep(1000)
        }
    }
}
