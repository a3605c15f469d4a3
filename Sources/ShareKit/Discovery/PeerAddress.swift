import ShareDiscovery

/// One address a receiver nearby was resolved to, as `share peers` shows it.
public struct PeerAddress: Sendable, Hashable {
    /// The address, e.g. `192.168.1.20` or `fe80::1`.
    public var ip: String
    /// `ipv4` (an A record) or `ipv6` (an AAAA record).
    public var family: String
    /// The interface it was seen on (`eth0`), when known.
    public var interfaceName: String?

    /// The address Avahi or a wide-area domain reported.
    init(_ address: ServiceAddress) {
        ip = address.ip
        family = address.family.rawValue
        interfaceName = address.interfaceName
    }
}
