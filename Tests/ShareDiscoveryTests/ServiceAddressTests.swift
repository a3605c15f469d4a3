import ShareDiscovery
import Testing

@Suite("Address preference order")
struct ServiceAddressTests {
    static func v4(_ ip: String, _ index: Int32 = 2) -> ServiceAddress {
        ServiceAddress(ip: ip, family: .ipv4, interfaceName: "eth0", interfaceIndex: index)
    }
    static func v6(_ ip: String, _ index: Int32 = 2) -> ServiceAddress {
        ServiceAddress(ip: ip, family: .ipv6, interfaceName: "eth0", interfaceIndex: index)
    }

    @Test("IPv4, then routable IPv6, then IPv4 link-local, then IPv6 link-local")
    func order() {
        let shuffled = [
            Self.v6("fe80::1%eth0"), Self.v4("169.254.3.4"), Self.v6("2001:db8::7"), Self.v4("10.0.0.7"),
            Self.v6("fd00::5"),
        ]
        let ordered = ServiceAddress.preferenceOrdered(shuffled).map(\.ip)
        #expect(ordered == ["10.0.0.7", "2001:db8::7", "fd00::5", "169.254.3.4", "fe80::1%eth0"])
    }

    @Test("Ties are broken by interface index then text, and duplicates removed")
    func stable() {
        let addresses = [
            Self.v4("10.0.1.2", 3), Self.v4("10.0.0.9", 2), Self.v4("10.0.0.8", 3), Self.v4("10.0.0.9", 2),
        ]
        #expect(ServiceAddress.preferenceOrdered(addresses).map(\.ip) == ["10.0.0.9", "10.0.0.8", "10.0.1.2"])
    }

    @Test(
        "Link-local detection",
        arguments: [
            ("fe80::1%eth0", ServiceAddress.Family.ipv6, true), ("FEBF::1", .ipv6, true), ("fec0::1", .ipv6, false),
            ("fe8::1", .ipv6, false), ("2001:db8::1", .ipv6, false), ("169.254.0.1", .ipv4, true),
            ("10.169.254.1", .ipv4, false),
        ])
    func linkLocal(_ ip: String, _ family: ServiceAddress.Family, _ expected: Bool) {
        #expect(ServiceAddress(ip: ip, family: family, interfaceName: nil, interfaceIndex: 1).isLinkLocal == expected)
    }

    @Test("DiscoveredService keeps its addresses in preference order")
    func discoveredServiceOrders() {
        let service = DiscoveredService(
            name: "desk", type: "_share._tcp", domain: "local", host: "desk.local", port: 1,
            addresses: [Self.v6("fe80::1%eth0"), Self.v4("10.0.0.7")], txt: [:], isLocal: false)
        #expect(service.addresses.map(\.ip) == ["10.0.0.7", "fe80::1%eth0"])
    }
}
