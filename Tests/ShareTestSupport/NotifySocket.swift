public import Glibc

/// A stand-in for systemd's notification socket: a datagram socket a test binds and passes to a
/// service as `NOTIFY_SOCKET`, then reads what the service sends with sd_notify (`READY=1`,
/// `STATUS=...`, `RELOADING=1`, `STOPPING=1`), one message per datagram.
public final class NotifySocket: @unchecked Sendable {
    // @unchecked: the descriptor is read by one test at a time.
    /// The socket's path, for `NOTIFY_SOCKET`.
    public let path: String
    private let fd: Int32

    /// Binds a socket at `path`.
    public init(path: String) throws {
        self.path = path
        unlink(path)
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HarnessError(description: "socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw HarnessError(description: "the socket path \(path) is too long")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else { throw HarnessError(description: "bind \(path): errno \(errno)") }
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// The next message, or nil when none comes within `timeout`.
    public func next(timeout: Duration = .seconds(20)) -> String? {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let millis = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        guard poll(&pfd, 1, millis) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : nil
    }

    /// Messages until one contains `assignment` (e.g. `READY=1`); every message read, or nil on timeout.
    public func messages(until assignment: String, timeout: Duration = .seconds(20)) -> [String]? {
        let deadline = ContinuousClock.now + timeout
        var seen: [String] = []
        while ContinuousClock.now < deadline {
            guard let message = next(timeout: deadline - ContinuousClock.now) else { return nil }
            seen.append(message)
            if message.split(separator: "\n").contains(Substring(assignment)) { return seen }
        }
        return nil
    }
}
