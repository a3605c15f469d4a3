#if canImport(Glibc)
import Glibc
#endif
import ShareSystem
import Synchronization

/// A UDP socket that is a member of one IPv4 multicast group on chosen interfaces, bound to the
/// group's port with `SO_REUSEADDR` so that other programs on this machine (LocalSend apps) can
/// share the port; owns its descriptor.
///
/// One thread receives at a time; ``close()`` may be called from any thread.
public final class MulticastSocket: Sendable {
    private let descriptor: Int32
    private let group: in_addr_t
    private let port: UInt16
    /// The IPv4 addresses of the interfaces it joined on (network byte order).
    private let interfaces: [in_addr_t]
    private let isClosed = Atomic<Bool>(false)

    /// A datagram and the IPv4 address it came from.
    public struct Datagram: Sendable {
        /// Its bytes (at most the size asked for; longer datagrams are cut and flagged).
        public var bytes: [UInt8]
        /// Whether it was longer than the buffer and was cut.
        public var truncated: Bool
        /// The sender's IPv4 address, dotted.
        public var source: String
    }

    /// Joins `group` (dotted IPv4) on each interface whose IPv4 address is in `interfaces` (4 bytes
    /// each; none joined means none usable, and the socket is still returned to send nothing).
    ///
    /// - Throws: ``TransportError/cannotListen(port:errno:)`` when the port cannot be bound.
    public init(group: String, port: UInt16, interfaces: [[UInt8]]) throws(TransportError) {
        var groupAddress = in_addr()
        guard inet_pton(AF_INET, group, &groupAddress) == 1 else { throw .invalidEndpoint(group) }
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .cannotListen(port: port, errno: errno) }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = INADDR_ANY
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            Glibc.close(fd)
            throw .cannotListen(port: port, errno: code)
        }
        var joined: [in_addr_t] = []
        for bytes in interfaces where bytes.count == 4 {
            let interface = bytes.withUnsafeBytes { $0.loadUnaligned(as: in_addr_t.self) }
            var request = ip_mreq(imr_multiaddr: groupAddress, imr_interface: in_addr(s_addr: interface))
            if setsockopt(fd, Int32(IPPROTO_IP), IP_ADD_MEMBERSHIP, &request, socklen_t(MemoryLayout<ip_mreq>.size)) == 0 {
                joined.append(interface)
            }
        }
        var ttl: UInt8 = 1
        _ = setsockopt(fd, Int32(IPPROTO_IP), IP_MULTICAST_TTL, &ttl, socklen_t(MemoryLayout<UInt8>.size))
        descriptor = fd
        self.group = groupAddress.s_addr
        self.port = port
        self.interfaces = joined
    }

    deinit { Glibc.close(descriptor) }

    /// How many interfaces it joined the group on.
    public var joinedInterfaces: Int { interfaces.count }

    /// Sends `bytes` to the group once on each joined interface; returns on how many it went out.
    @discardableResult
    public func sendToGroup(_ bytes: [UInt8]) -> Int {
        var sent = 0
        for interface in interfaces {
            var outgoing = in_addr(s_addr: interface)
            guard setsockopt(descriptor, Int32(IPPROTO_IP), IP_MULTICAST_IF, &outgoing, socklen_t(MemoryLayout<in_addr>.size)) == 0
            else { continue }
            var target = sockaddr_in()
            target.sin_family = sa_family_t(AF_INET)
            target.sin_port = port.bigEndian
            target.sin_addr.s_addr = group
            let result = bytes.withUnsafeBytes { buffer in
                withUnsafePointer(to: &target) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                        retryingOnInterrupt {
                            Glibc.sendto(
                                descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL), address,
                                socklen_t(MemoryLayout<sockaddr_in>.size))
                        }
                    }
                }
            }
            if result == bytes.count { sent += 1 }
        }
        return sent
    }

    /// Waits at most `timeout` for one datagram of at most `limit` bytes; nil when none came or the
    /// socket was closed.
    public func receive(limit: Int, timeout: Duration) -> Datagram? {
        guard !isClosed.load(ordering: .acquiring) else { return nil }
        var pfd = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = retryingOnInterrupt { poll(&pfd, 1, Int32(clamping: max(0, timeout.milliseconds))) }
        guard ready > 0, pfd.revents & Int16(POLLIN) != 0, !isClosed.load(ordering: .acquiring) else { return nil }
        var buffer = [UInt8](repeating: 0, count: limit + 1)
        var source = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let count = buffer.withUnsafeMutableBytes { raw in
            withUnsafeMutablePointer(to: &source) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                    retryingOnInterrupt { recvfrom(descriptor, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT), address, &length) }
                }
            }
        }
        guard count >= 0 else { return nil }
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        _ = inet_ntop(AF_INET, &source.sin_addr, &text, socklen_t(INET_ADDRSTRLEN))
        let truncated = count > limit
        return Datagram(
            bytes: Array(buffer[0..<min(count, limit)]), truncated: truncated,
            source: String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// Ends the socket's use: a receive in progress returns nil at once, and later ones too. The
    /// descriptor itself is closed when the socket is released, so no other thread can be left
    /// polling a number the system has given to another file.
    public func close() {
        guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
    }
}
