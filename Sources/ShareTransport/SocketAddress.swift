#if canImport(Glibc)
import Glibc
#endif

/// A resolved socket address (IPv4 or IPv6, with scope), as getaddrinfo returns it.
struct SocketAddress: Sendable {
    private var storage: sockaddr_storage
    let length: socklen_t

    var family: Int32 { Int32(storage.ss_family) }

    init(storage: sockaddr_storage, length: socklen_t) {
        self.storage = storage
        self.length = length
    }

    func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafePointer(to: storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }

    /// The host's address bytes without the port: 4 for IPv4 (also for an IPv4-mapped IPv6
    /// address), 16 for IPv6; empty for another family.
    var hostBytes: [UInt8] {
        withUnsafeBytes(of: storage) { raw -> [UInt8] in
            switch Int32(storage.ss_family) {
            case AF_INET:
                let offset = MemoryLayout<sockaddr_in>.offset(of: \sockaddr_in.sin_addr)!
                return Array(raw[offset..<offset + 4])
            case AF_INET6:
                let offset = MemoryLayout<sockaddr_in6>.offset(of: \sockaddr_in6.sin6_addr)!
                let bytes = Array(raw[offset..<offset + 16])
                let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xff, 0xff]
                return bytes.starts(with: mappedPrefix) ? Array(bytes[12...]) : bytes
            default:
                return []
            }
        }
    }

    /// Whether the host is a loopback address (127.0.0.0/8, ::1).
    var isLoopback: Bool {
        let bytes = hostBytes
        return bytes.count == 4 ? bytes[0] == 127 : bytes == Array(repeating: 0, count: 15) + [1]
    }

    /// The address of one end of the connected socket `descriptor` (`getsockname`, or with `peer`
    /// `getpeername`), or `nil`.
    static func of(socket descriptor: Int32, peer: Bool) -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                peer ? getpeername(descriptor, $0, &length) : getsockname(descriptor, $0, &length)
            }
        }
        return result == 0 ? SocketAddress(storage: storage, length: length) : nil
    }

    /// `address:port` (IPv6 in brackets, with `%scope` when it has one).
    var description: String {
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        let result = withSockAddr { address, length in
            getnameinfo(address, length, &host, socklen_t(host.count), &service, socklen_t(service.count),
                        NI_NUMERICHOST | NI_NUMERICSERV)
        }
        guard result == 0 else { return "?" }
        let hostText = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let port = String(decoding: service.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return hostText.contains(":") ? "[\(hostText)]:\(port)" : "\(hostText):\(port)"
    }

    /// Resolves `host` (a name or a literal, IPv6 possibly with `%scope`) for TCP.
    static func resolve(host: String, port: UInt16) throws(TransportError) -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>?
        var status = getaddrinfo(host, String(port), &hints, &list)
        if status == EAI_NONAME {
            // AI_ADDRCONFIG hides IPv6 on hosts with only link-local IPv6; try again without it.
            hints.ai_flags = AI_NUMERICSERV
            status = getaddrinfo(host, String(port), &hints, &list)
        }
        guard status == 0, let first = list else {
            throw .hostNotFound(host: host, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            if let address = info.pointee.ai_addr {
                var storage = sockaddr_storage()
                let length = info.pointee.ai_addrlen
                withUnsafeMutableBytes(of: &storage) { target in
                    target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(length)))
                }
                addresses.append(SocketAddress(storage: storage, length: length))
            }
            cursor = info.pointee.ai_next
        }
        return addresses
    }
}
