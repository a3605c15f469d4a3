#if canImport(Glibc)
import Glibc
#endif

/// This machine's own IP addresses, read with getifaddrs(3).
public enum LocalAddresses {
    /// One address of an interface, with its prefix length.
    public struct Entry: Sendable, Hashable {
        /// 4 bytes for IPv4, 16 for IPv6.
        public var bytes: [UInt8]
        /// The network prefix length (24 for a /24).
        public var prefixLength: Int
        /// The interface's name.
        public var interface: String

        public init(bytes: [UInt8], prefixLength: Int, interface: String) {
            self.bytes = bytes
            self.prefixLength = prefixLength
            self.interface = interface
        }

        /// The address as text.
        public var text: String { IPAddressText.format(bytes) }
    }

    /// Every address on an interface that is up, except loopback and link-local ones: what a
    /// machine on another subnet could reach. Sorted (IPv4 first) so that equal sets compare equal.
    public static func routable() -> [Entry] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var entries: [Entry] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            cursor = entry.pointee.ifa_next
            let flags = Int32(bitPattern: entry.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0,
                let address = entry.pointee.ifa_addr, let bytes = Self.bytes(address), !isLinkLocal(bytes)
            else { continue }
            let prefix = entry.pointee.ifa_netmask.flatMap(Self.bytes).map { mask in
                mask.reduce(0) { $0 + $1.nonzeroBitCount }
            }
            entries.append(
                Entry(bytes: bytes, prefixLength: prefix ?? bytes.count * 8, interface: String(cString: entry.pointee.ifa_name)))
        }
        return Array(Set(entries)).sorted { lhs, rhs in
            lhs.bytes.count != rhs.bytes.count
                ? lhs.bytes.count < rhs.bytes.count : lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
        }
    }

    /// The raw bytes of an IPv4 or IPv6 socket address.
    private static func bytes(_ address: UnsafeMutablePointer<sockaddr>) -> [UInt8]? {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) }
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
            }
        default:
            return nil
        }
    }

    /// 169.254.0.0/16 and fe80::/10: reachable only on their own link.
    static func isLinkLocal(_ bytes: [UInt8]) -> Bool {
        bytes.count == 4 ? bytes[0] == 169 && bytes[1] == 254 : bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80
    }
}

/// IP addresses between bytes and text.
public enum IPAddressText {
    /// `10.0.0.7`, `fd00::7`.
    public static func format(_ bytes: [UInt8]) -> String {
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let ok = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) } != nil
        return ok ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
    }

    /// The bytes of an IPv4 or IPv6 address in text (a `%scope` is ignored), or nil.
    public static func parse(_ text: String) -> [UInt8]? {
        let plain = String(text.prefix { $0 != "%" })
        var v4 = in_addr()
        if inet_pton(AF_INET, plain, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, plain, &v6) == 1 { return withUnsafeBytes(of: v6) { Array($0) } }
        return nil
    }
}
