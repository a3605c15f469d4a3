/// One address at which a discovered service can be reached.
///
/// ## Preference order
/// ``DiscoveredService/addresses`` lists addresses in the order a sender should try them:
/// 1. IPv4, other than link-local: what every LAN configures, no scope needed;
/// 2. IPv6 global or unique-local (not `fe80::/10`);
/// 3. IPv4 link-local (`169.254.0.0/16`);
/// 4. IPv6 link-local, with its scope (`fe80::1%eth0`): works on any link even without
///    DHCP or router, so it is the last-resort fallback, but needs the interface.
///
/// Within one rank, lower interface indexes come first, then the text, so the order is stable.
public struct ServiceAddress: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The address family.
    public enum Family: String, Sendable, Hashable, Codable {
        /// IPv4 (an A record).
        case ipv4
        /// IPv6 (an AAAA record).
        case ipv6
    }

    /// The address as text, ready for `getaddrinfo`: `10.0.0.7`, `2001:db8::7`, or for an
    /// IPv6 link-local address the address with its scope, `fe80::1%eth0` (or `fe80::1%3`
    /// when the interface has no name).
    public var ip: String
    /// IPv4 or IPv6.
    public var family: Family
    /// The name of the local interface the service was seen on, e.g. `eth0`, if known.
    public var interfaceName: String?
    /// The index of the local interface the service was seen on.
    public var interfaceIndex: Int32

    /// Creates an address.
    public init(ip: String, family: Family, interfaceName: String?, interfaceIndex: Int32) {
        self.ip = ip
        self.family = family
        self.interfaceName = interfaceName
        self.interfaceIndex = interfaceIndex
    }

    /// True for `169.254.0.0/16` and `fe80::/10`.
    public var isLinkLocal: Bool {
        switch family {
        case .ipv4:
            return ip.hasPrefix("169.254.")
        case .ipv6:
            // fe80::/10: the first group is four hex digits, fe8x to febx.
            let first = ip.prefix { $0 != ":" }.lowercased()
            guard first.count == 4, first.hasPrefix("fe") else { return false }
            return ["8", "9", "a", "b"].contains(first.dropFirst(2).prefix(1))
        }
    }

    /// The rank in the preference order described on the type (0 is tried first).
    public var preferenceRank: Int {
        switch (family, isLinkLocal) {
        case (.ipv4, false): 0
        case (.ipv6, false): 1
        case (.ipv4, true): 2
        case (.ipv6, true): 3
        }
    }

    /// The address text.
    public var description: String { ip }

    /// Sorts addresses into the preference order described on the type and drops duplicates.
    public static func preferenceOrdered(_ addresses: some Sequence<ServiceAddress>) -> [ServiceAddress] {
        Array(Set(addresses)).sorted { lhs, rhs in
            (lhs.preferenceRank, lhs.interfaceIndex, lhs.ip, lhs.family.rawValue)
                < (rhs.preferenceRank, rhs.interfaceIndex, rhs.ip, rhs.family.rawValue)
        }
    }
}
