#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A listening TCP socket on every interface (IPv6 and IPv4 on one socket when the system allows).
public final class TCPListener: Sendable {
    private let descriptor: Int32
    /// The port actually bound (useful after asking for port 0).
    public let port: UInt16
    private let isStopped = Atomic<Bool>(false)

    /// Binds and listens.
    /// - Parameter port: the port; 0 picks a free one.
    /// - Throws: ``TransportError/cannotListen(port:errno:)``.
    public init(port: UInt16, backlog: Int32 = 64) throws(TransportError) {
        var fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var one: Int32 = 1
        var zero: Int32 = 0
        if fd >= 0 {
            _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &zero, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_addr = in6addr_any
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
            if bound != 0 {
                let code = errno
                Glibc.close(fd)
                if code != EAFNOSUPPORT && code != EADDRNOTAVAIL { throw .cannotListen(port: port, errno: code) }
                fd = -1
            }
        }
        if fd < 0 {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw .cannotListen(port: port, errno: errno) }
            _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr = in_addr(s_addr: INADDR_ANY)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            if bound != 0 {
                let code = errno
                Glibc.close(fd)
                throw .cannotListen(port: port, errno: code)
            }
        }
        guard listen(fd, backlog) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw .cannotListen(port: port, errno: code)
        }
        let bound = SocketAddress.of(socket: fd, peer: false)?.description
        self.port = UInt16(bound?.split(separator: ":").last ?? "0") ?? port
        self.descriptor = fd
    }

    deinit {
        Glibc.close(descriptor)
    }

    /// Waits for the next connection. Returns nil once ``stop()`` was called.
    /// - Throws: ``TransportError`` for errors other than a peer that gave up before accept.
    public func accept() throws(TransportError) -> TCPSocket? {
        while true {
            if isStopped.load(ordering: .acquiring) { return nil }
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.accept(descriptor, $0, &length)
                }
            }
            if fd >= 0 {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                let remote = SocketAddress(storage: storage, length: length).description
                return TCPSocket(descriptor: fd, remoteDescription: remote.replacingPrefix("[::ffff:", with: "["))
            }
            let code = errno
            if isStopped.load(ordering: .acquiring) { return nil }
            switch code {
            case EINTR, ECONNABORTED, EPROTO, ENETDOWN, ENOPROTOOPT, EHOSTDOWN, ENONET, EHOSTUNREACH, EOPNOTSUPP,
                ENETUNREACH:
                continue
            case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                // Out of descriptors or memory: wait a little instead of spinning.
                usleep(50_000)
                continue
            default:
                throw .socket(operation: "accepting on port", endpoint: String(port), errno: code)
            }
        }
    }

    /// Stops listening; a thread blocked in ``accept()`` returns nil. Safe from any thread.
    public func stop() {
        if isStopped.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
            _ = shutdown(descriptor, Int32(SHUT_RDWR))
        }
    }
}

extension String {
    /// Turns an IPv4-mapped IPv6 address (`[::ffff:10.0.0.1]:80`) back into `10.0.0.1:80`.
    func replacingPrefix(_ prefix: String, with replacement: String) -> String {
        guard hasPrefix(prefix), let close = firstIndex(of: "]") else { return self }
        let inner = self[index(startIndex, offsetBy: prefix.count)..<close]
        return String(inner) + self[index(after: close)...]
    }
}
