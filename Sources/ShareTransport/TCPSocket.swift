#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A connected TCP socket; owns its file descriptor.
///
/// Reads and writes happen on one thread at a time (the connection's own), but ``shutdown()`` may
/// be called from any thread to wake that thread up: that is how transfers are cancelled.
public final class TCPSocket: Sendable {
    /// The file descriptor, valid until ``close()``.
    public let descriptor: Int32
    /// The peer, as `address:port`.
    public let remoteDescription: String
    private let isClosed = Atomic<Bool>(false)

    init(descriptor: Int32, remoteDescription: String) {
        self.descriptor = descriptor
        self.remoteDescription = remoteDescription
        var one: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { close() }

    /// Connects to `endpoint`, trying each address its host resolves to, in order.
    /// - Parameter timeout: the limit for each address.
    /// - Throws: ``TransportError``: refused, timed out, not found.
    public static func connect(to endpoint: Endpoint, timeout: Duration) throws(TransportError) -> TCPSocket {
        let addresses = try SocketAddress.resolve(host: endpoint.host, port: endpoint.port)
        var lastError = TransportError.connectionRefused(endpoint: endpoint.description)
        for address in addresses {
            do throws(TransportError) {
                return try connect(to: address, timeout: timeout, label: endpoint.description)
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    /// Connects to one resolved address.
    static func connect(to address: SocketAddress, timeout: Duration, label: String) throws(TransportError) -> TCPSocket {
        let fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .socket(operation: "creating a socket for", endpoint: label, errno: errno) }
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        var result = address.withSockAddr { Glibc.connect(fd, $0, $1) }
        if result != 0 && errno == EINPROGRESS {
            var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&pfd, 1, Int32(clamping: timeout.milliseconds))
            if ready == 0 {
                Glibc.close(fd)
                throw .timedOut(endpoint: label, operation: "connecting")
            }
            var code: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length)
            result = code == 0 ? 0 : -1
            errno = code
        }
        if result != 0 {
            let code = errno
            Glibc.close(fd)
            if code == ECONNREFUSED { throw .connectionRefused(endpoint: label) }
            if code == ETIMEDOUT { throw .timedOut(endpoint: label, operation: "connecting") }
            throw .socket(operation: "connecting to", endpoint: label, errno: code)
        }
        _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK)
        return TCPSocket(descriptor: fd, remoteDescription: label)
    }

    /// Whether the peer is on this machine: it has a loopback address, or the address of this end
    /// (a connection to one of the machine's own addresses stays inside it too).
    public var peerIsThisMachine: Bool {
        guard let peer = SocketAddress.of(socket: descriptor, peer: true),
            let local = SocketAddress.of(socket: descriptor, peer: false)
        else { return false }
        return peer.isLoopback || (!peer.hostBytes.isEmpty && peer.hostBytes == local.hostBytes)
    }

    /// Bytes written to the socket that the peer has not acknowledged yet (`SIOCOUTQ`: not sent,
    /// or sent and not acknowledged), or nil when the kernel does not say. A queue that stays
    /// near empty while the sender writes as fast as it can means the link takes everything.
    public var unacknowledgedBytes: Int? {
        var queued: Int32 = 0
        // SIOCOUTQ is TIOCOUTQ (linux/sockios.h).
        return ioctl(descriptor, UInt(TIOCOUTQ), &queued) == 0 ? Int(queued) : nil
    }

    /// Sets how long a blocking read or write may wait before failing with EAGAIN (nil: forever).
    public func setTimeouts(receive: Duration?, send: Duration?) {
        func apply(_ option: Int32, _ duration: Duration?) {
            var value = timeval(tv_sec: 0, tv_usec: 0)
            if let duration {
                let micros = max(duration.microseconds, 1)
                value = timeval(tv_sec: Int(micros / 1_000_000), tv_usec: Int(micros % 1_000_000))
            }
            _ = setsockopt(descriptor, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
        }
        apply(SO_RCVTIMEO, receive)
        apply(SO_SNDTIMEO, send)
    }

    /// Whether bytes (or end of stream) can be read without blocking, waiting up to `timeout`.
    public func waitReadable(timeout: Duration) -> Bool {
        var pfd = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&pfd, 1, Int32(clamping: timeout.milliseconds)) > 0
    }

    /// What ``waitReadable(orWake:timeout:)`` saw.
    public enum Readiness: Sendable {
        /// Bytes (or end of stream) can be read.
        case readable
        /// The wake signal was given.
        case woken
        /// Neither happened in time.
        case timedOut
    }

    /// Waits until the socket is readable or one of `wakes` is signalled, at most `timeout` (nil:
    /// forever).
    public func waitReadable(orWake wakes: [WakeSignal], timeout: Duration?) -> Readiness {
        if wakes.contains(where: \.isSignalled) { return .woken }
        var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
        for wake in wakes { fds.append(pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)) }
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while true {
            let left = deadline.map { max(.zero, $0 - ContinuousClock.now) }
            let result = poll(&fds, nfds_t(fds.count), left.map { Int32(clamping: $0.milliseconds) } ?? -1)
            if wakes.contains(where: \.isSignalled) { return .woken }
            if result > 0 && fds[0].revents != 0 { return .readable }
            if result < 0 && errno != EINTR { return .readable }
            if let left, left <= .milliseconds(1) { return .timedOut }
        }
    }

    /// Stops reading: a thread blocked in a read sees end of stream, while this side can still send
    /// (a last ERROR, say). Safe from any thread.
    public func shutdownRead() {
        if !isClosed.load(ordering: .acquiring) { _ = Glibc.shutdown(descriptor, Int32(SHUT_RD)) }
    }

    /// Stops all I/O on the socket; a thread blocked in a read or write returns. Safe from any thread.
    public func shutdown() {
        if !isClosed.load(ordering: .acquiring) { _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    /// Half-closes the sending direction (the peer reads end of stream).
    public func shutdownWrite() {
        if !isClosed.load(ordering: .acquiring) { _ = Glibc.shutdown(descriptor, Int32(SHUT_WR)) }
    }

    /// Reads and discards until end of stream, an error, or `duration` passes.
    public func drain(for duration: Duration) {
        let deadline = ContinuousClock.now + duration
        var scratch = [UInt8](repeating: 0, count: 16 << 10)
        while ContinuousClock.now < deadline {
            guard waitReadable(timeout: deadline - ContinuousClock.now) else { return }
            let count = scratch.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count <= 0 && !(count < 0 && (errno == EAGAIN || errno == EINTR)) { return }
        }
    }

    /// Closes the descriptor (once).
    public func close() {
        if isClosed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
            Glibc.close(descriptor)
        }
    }
}

extension Duration {
    var milliseconds: Int64 { components.seconds * 1_000 + components.attoseconds / 1_000_000_000_000_000 }
    var microseconds: Int64 { components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000 }
}
