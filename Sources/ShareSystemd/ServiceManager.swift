internal import CShareSystemd
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The service manager (systemd) that supervises this process, told about the service's state
/// through `sd_notify(3)` of libsystemd: readiness, a status line, reloads and the stop.
///
/// systemd passes the socket to notify in `NOTIFY_SOCKET` (for `Type=notify` units). Without it
/// (a process started by hand) every call does nothing, so a service runs the same either way.
///
/// ```swift
/// let manager = ServiceManager()
/// manager.ready(status: "Receiving on port 47321")
/// ```
///
/// Thread-safe: each call sends one datagram.
public final class ServiceManager: Sendable {
    private let supervised: Bool
    private let lastStatus = Mutex<String?>(nil)

    /// Connects to the manager named by `NOTIFY_SOCKET`, if any.
    public init() {
        supervised = getenv("NOTIFY_SOCKET") != nil
    }

    /// Whether a service manager is listening (`NOTIFY_SOCKET` is set).
    public var isSupervised: Bool { supervised }

    /// The service is up (`READY=1`), with a status line; sent again after each reload.
    @discardableResult
    public func ready(status: String) -> Bool {
        lastStatus.withLock { $0 = status }
        return notify(["READY=1", "STATUS=" + Self.oneLine(status)])
    }

    /// A new status line (`STATUS=`), shown by `systemctl status`.
    @discardableResult
    public func status(_ text: String) -> Bool {
        let changed = lastStatus.withLock { last in
            defer { last = text }
            return last != text
        }
        return changed ? notify(["STATUS=" + Self.oneLine(text)]) : true
    }

    /// The service is reloading its configuration (`RELOADING=1`, with the monotonic time systemd
    /// 253 and later expect); call ``ready(status:)`` when done.
    @discardableResult
    public func reloading(status: String) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let microseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        return notify(["RELOADING=1", "MONOTONIC_USEC=\(microseconds)", "STATUS=" + Self.oneLine(status)])
    }

    /// The service is stopping (`STOPPING=1`).
    @discardableResult
    public func stopping(status: String) -> Bool {
        notify(["STOPPING=1", "STATUS=" + Self.oneLine(status)])
    }

    /// Sends `assignments` in one message; true when the manager got it (or there is none).
    private func notify(_ assignments: [String]) -> Bool {
        guard supervised else { return true }
        return libsystemd.sd_notify(0, assignments.joined(separator: "\n")) >= 0
    }

    /// A status is one line: newlines would start new assignments.
    private static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }
}
