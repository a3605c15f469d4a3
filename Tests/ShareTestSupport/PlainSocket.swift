import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The few socket calls the fault lab needs, on plain non-blocking descriptors. The lab tests the
/// project's transport code, so it uses none of it.
enum PlainSocket {
    /// The addresses `host` (a name or a literal, IPv6 without brackets) resolves to for a TCP `port`.
    static func resolve(_ host: String, port: Int) throws -> [(family: Int32, address: [UInt8])] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw HarnessError(description: "cannot resolve '\(host)': \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(first) }
        var found: [(Int32, [UInt8])] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            let bytes = UnsafeRawBufferPointer(start: current.pointee.ai_addr, count: Int(current.pointee.ai_addrlen))
            found.append((current.pointee.ai_family, Array(bytes)))
            entry = current.pointee.ai_next
        }
        return found
    }

    /// A non-blocking listening socket on `host`:`port` (0: any free port), with SO_REUSEADDR.
    ///
    /// - Returns: the descriptor and the port it listens on.
    static func listen(on host: String, port: Int) throws -> (descriptor: Int32, port: Int) {
        guard let (family, address) = try resolve(host, port: port).first else {
            throw HarnessError(description: "no address for '\(host)'")
        }
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw HarnessError(description: "socket: \(errorText())") }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = address.withUnsafeBytes {
            bind(fd, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count)) == 0
        }
        guard bound, Glibc.listen(fd, 64) == 0 else {
            let reason = errorText()
            close(fd)
            throw HarnessError(description: "cannot listen on \(host) port \(port): \(reason)")
        }
        return (fd, localPort(fd))
    }

    /// Connects to `host`:`port` (each address in turn, at most `timeout` each) and returns a
    /// non-blocking descriptor.
    static func connect(to host: String, port: Int, timeout: Duration) throws -> Int32 {
        var lastError = "no address"
        for (family, address) in try resolve(host, port: port) {
            let fd = socket(
                family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { throw HarnessError(description: "socket: \(errorText())") }
            var result = address.withUnsafeBytes {
                Glibc.connect(fd, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count))
            }
            if result != 0 && errno == EINPROGRESS {
                var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                if poll(&entry, 1, Int32(clamping: timeout.milliseconds)) == 1 {
                    var code: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length)
                    result = code == 0 ? 0 : -1
                    errno = code
                } else {
                    errno = ETIMEDOUT
                }
            }
            if result == 0 {
                setNoDelay(fd)
                return fd
            }
            lastError = errorText()
            close(fd)
        }
        throw HarnessError(description: "cannot connect to \(host) port \(port): \(lastError)")
    }

    /// Accepts one waiting connection (non-blocking), or returns nil.
    static func accept(_ listener: Int32) -> Int32? {
        let fd = Glibc.accept(listener, nil, nil)
        guard fd >= 0 else { return nil }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        setNoDelay(fd)
        return fd
    }

    /// The local port of a socket.
    static func localPort(_ fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return withUnsafeBytes(of: &storage) { raw in
            // sin_port and sin6_port sit at the same offset, in network order.
            Int(raw[2]) << 8 | Int(raw[3])
        }
    }

    /// Forwarded bytes go out at once, as the endpoints wrote them.
    static func setNoDelay(_ fd: Int32) {
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Makes the next close(2) send a TCP reset (RST) instead of a FIN.
    static func setResetOnClose(_ fd: Int32) {
        var value = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &value, socklen_t(MemoryLayout<linger>.size))
    }

    /// Bytes written to the socket that the peer has not acknowledged yet (SIOCOUTQ).
    static func unacknowledgedBytes(_ fd: Int32) -> Int {
        var count: Int32 = 0
        guard ioctl(fd, UInt(TIOCOUTQ), &count) == 0 else { return 0 }
        return Int(count)
    }

    /// Waits (at most `limit`) until the peer acknowledged everything written to `fd`.
    static func waitUntilAcknowledged(_ fd: Int32, limit: Duration) {
        let deadline = ContinuousClock.now + limit
        while unacknowledgedBytes(fd) > 0 && ContinuousClock.now < deadline { usleep(1000) }
    }

    /// Reads and drops what the peer still sends until it closes its end (at most `limit`): a socket
    /// closed with unread data sends a reset, and a reset makes the peer's kernel throw away what it
    /// received but its program had not read yet.
    static func discardUntilClosed(_ fd: Int32, limit: Duration) {
        let deadline = ContinuousClock.now + limit
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while ContinuousClock.now < deadline {
            guard wait(fd, for: Int32(POLLIN), milliseconds: 10) != 0 else { continue }
            let got = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR) { return }
        }
    }

    /// Waits (at most `milliseconds`) for `events` on `fd`; returns the events that came.
    static func wait(_ fd: Int32, for events: Int32, milliseconds: Int32) -> Int32 {
        var entry = pollfd(fd: fd, events: Int16(events), revents: 0)
        let ready = poll(&entry, 1, milliseconds)
        return ready > 0 ? Int32(entry.revents) : 0
    }

    /// strerror of the current errno.
    static func errorText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }
}

extension Duration {
    /// The duration in whole milliseconds (at least 0).
    var milliseconds: Int64 {
        max(0, components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000)
    }

    /// The duration in seconds.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
