#if canImport(Glibc)
import Glibc
#endif

/// The networks of this machine's interfaces (from `getifaddrs(3)`), to check that an address a
/// DNS-SD responder gave belongs where the service was seen: a responder on the LAN must not be
/// able to send a sender to its own loopback, or to an address of another network.
public struct InterfaceNetworks: Sendable {
    /// One address of an interface and the network around it.
    struct Network: Sendable, Hashable {
        var index: Int32
        var bytes: [UInt8]
        var prefixLength: Int
        var isLoopback: Bool
    }

    let networks: [Network]

    /// Fixed networks, for tests: `(interface index, address, prefix length, loopback)`.
    package static func fixed(_ entries: [(Int32, String, Int, Bool)]) -> InterfaceNetworks {
        InterfaceNetworks(
            networks: entries.compactMap { index, address, prefix, loopback in
                parse(address).map { Network(index: index, bytes: $0, prefixLength: prefix, isLoopback: loopback) }
            })
    }

    /// The networks of the interfaces that are up now.
    public static func current() -> InterfaceNetworks {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return InterfaceNetworks(networks: []) }
        defer { freeifaddrs(list) }
        var networks: [Network] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            cursor = entry.pointee.ifa_next
            let flags = Int32(bitPattern: entry.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, let address = entry.pointee.ifa_addr, let bytes = Self.bytes(address) else {
                continue
            }
            let prefix = entry.pointee.ifa_netmask.flatMap(Self.bytes).map { $0.reduce(0) { $0 + $1.nonzeroBitCount } }
            networks.append(
                Network(
                    index: Int32(if_nametoindex(entry.pointee.ifa_name)), bytes: bytes, prefixLength: prefix ?? bytes.count * 8,
                    isLoopback: flags & Int32(IFF_LOOPBACK) != 0))
        }
        return InterfaceNetworks(networks: networks)
    }

    /// Why `address` must not be used for a service seen on its interface, or nil when it may.
    ///
    /// Never: unspecified or multicast addresses; loopback unless the service was seen on the
    /// loopback interface. For a service seen on an interface (multicast DNS): an IPv6 link-local
    /// address, or an address inside one of that interface's networks. An address learnt through
    /// unicast DNS (no interface) only has to be neither loopback nor link-local.
    public func problem(with address: ServiceAddress) -> String? {
        guard let bytes = Self.parse(address.ip) else { return "it is not an IP address" }
        if bytes.allSatisfy({ $0 == 0 }) { return "it is unspecified" }
        if bytes.count == 4 ? bytes[0] >= 224 && bytes[0] < 240 : bytes[0] == 0xFF { return "it is a multicast address" }
        let loopback = bytes.count == 4 ? bytes[0] == 127 : bytes == [UInt8](repeating: 0, count: 15) + [1]
        let onInterface = networks.filter { $0.index == address.interfaceIndex }
        if loopback {
            return onInterface.contains(where: \.isLoopback) ? nil : "a responder on the network named this machine's own loopback"
        }
        let linkLocal = bytes.count == 16 && bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80
        guard address.interfaceIndex > 0 else {
            return linkLocal ? "a link-local address without an interface" : nil
        }
        if linkLocal { return nil }
        if onInterface.contains(where: { $0.bytes.count == bytes.count && Self.sameNetwork($0.bytes, bytes, $0.prefixLength) }) {
            return nil
        }
        return "it is not in a network of the interface the service was seen on"
    }

    static func sameNetwork(_ a: [UInt8], _ b: [UInt8], _ prefixLength: Int) -> Bool {
        var bits = prefixLength
        for (x, y) in zip(a, b) where bits > 0 {
            let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
            if x & mask != y & mask { return false }
            bits -= 8
        }
        return true
    }

    /// The bytes of an address in text (`10.0.0.1`, `fe80::1%eth0`).
    static func parse(_ text: String) -> [UInt8]? {
        let plain = String(text.split(separator: "%", maxSplits: 1).first ?? "")
        var v4 = in_addr()
        if inet_pton(AF_INET, plain, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, plain, &v6) == 1 { return withUnsafeBytes(of: v6) { Array($0) } }
        return nil
    }

    private static func bytes(_ address: UnsafeMutablePointer<sockaddr>) -> [UInt8]? {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { withUnsafeBytes(of: $0.pointee.sin_addr) { Array($0) } }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { withUnsafeBytes(of: $0.pointee.sin6_addr) { Array($0) } }
        default:
            return nil
        }
    }
}
