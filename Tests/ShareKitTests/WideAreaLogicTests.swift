import ShareDNS
import ShareDiscovery
@testable import ShareKit
import Testing

struct WideAreaLogicTests {
    static func service(_ name: String, domain: String, port: UInt16 = 47321, fp: String?, addresses: [(String, Int32)]) -> DiscoveredService {
        DiscoveredService(
            name: name, type: "_share._tcp", domain: domain, host: domain == "local" ? "a.local" : "share-x.\(domain)", port: port,
            addresses: addresses.map {
                ServiceAddress(ip: $0.0, family: $0.0.contains(":") ? .ipv6 : .ipv4, interfaceName: $0.1 > 0 ? "eth0" : nil, interfaceIndex: $0.1)
            },
            txt: fp.map { ["v": "1", "fp": $0] } ?? ["v": "1"], isLocal: false)
    }

    static let fingerprint = "0123456789abcdef0123456789abcdef"

    @Test func oneReceiverInSeveralPlacesIsOneEntryWithEveryAddressOnce() {
        let merged = PeerMerger.merge([
            Self.service("desk", domain: "office.example", fp: Self.fingerprint, addresses: [("10.0.1.7", 0), ("fd00:1::7", 0)]),
            Self.service("desk", domain: "local", fp: Self.fingerprint, addresses: [("10.0.1.7", 2), ("fe80::7%eth0", 2)]),
            Self.service("desk", domain: "campus.example", fp: Self.fingerprint, addresses: [("10.0.1.7", 0)]),
        ])
        #expect(merged.count == 1)
        #expect(merged[0].domains == ["local", "campus.example", "office.example"])
        #expect(merged[0].service.host == "a.local")
        #expect(merged[0].service.addresses.map(\.ip) == ["10.0.1.7", "fd00:1::7", "fe80::7%eth0"])
        #expect(merged[0].service.addresses[0].interfaceName == "eth0")
    }

    @Test func differentKeysPortsOrNoFingerprintStayApart() {
        let merged = PeerMerger.merge([
            Self.service("desk", domain: "local", fp: Self.fingerprint, addresses: [("10.0.1.7", 2)]),
            Self.service("desk", domain: "office.example", fp: String(repeating: "f", count: 32), addresses: [("10.0.2.9", 0)]),
            Self.service("desk", domain: "office.example", port: 1234, fp: Self.fingerprint, addresses: [("10.0.1.7", 0)]),
            Self.service("printer", domain: "local", fp: nil, addresses: [("10.0.1.8", 2)]),
            Self.service("printer", domain: "office.example", fp: nil, addresses: [("10.0.1.8", 0)]),
        ])
        #expect(merged.count == 5)
    }

    @Test func twoServicesOfOneDomainWithTheSameFingerprintStayApart() {
        // A forged "decoy" copies desk's fingerprint and port on the local network: listing them
        // as one would hide one name and mix their addresses.
        let merged = PeerMerger.merge([
            Self.service("desk", domain: "local", fp: Self.fingerprint, addresses: [("10.0.1.7", 2)]),
            Self.service("decoy", domain: "local", fp: Self.fingerprint, addresses: [("10.0.1.66", 2)]),
            Self.service("desk", domain: "office.example", fp: Self.fingerprint, addresses: [("10.0.1.7", 0)]),
        ])
        #expect(merged.map(\.service.name) == ["desk", "decoy"])
        #expect(merged[0].domains == ["local", "office.example"])
        #expect(merged[1].service.addresses.map(\.ip) == ["10.0.1.66"])
    }

    @Test func alternativeNamesFollowAvahisPattern() {
        #expect(WideAreaNames.alternative(to: "desk") == "desk #2")
        #expect(WideAreaNames.alternative(to: "desk #2") == "desk #3")
        #expect(WideAreaNames.alternative(to: "room #1") == "room #1 #2")
        let long = String(repeating: "é", count: 31)  // 62 bytes
        let next = WideAreaNames.alternative(to: long)
        #expect(next.utf8.count <= 63)
        #expect(next.hasSuffix(" #2"))
    }

    @Test func subnetBrowseDomainNamesFollowRFC6763() throws {
        let v4 = LocalAddresses.Entry(bytes: [192, 168, 2, 77], prefixLength: 24, interface: "eth0")
        #expect(WideAreaBrowser.subnetName(v4)?.presentation == "0.2.168.192.in-addr.arpa")
        let narrow = LocalAddresses.Entry(bytes: [10, 1, 2, 200], prefixLength: 25, interface: "eth0")
        #expect(WideAreaBrowser.subnetName(narrow)?.presentation == "128.2.1.10.in-addr.arpa")
        let v6 = LocalAddresses.Entry(bytes: [0xFD, 0, 0x02, 0x32] + Array(repeating: 0, count: 11) + [0x11], prefixLength: 64, interface: "eth0")
        let name = try #require(WideAreaBrowser.subnetName(v6)?.presentation)
        #expect(name == String(repeating: "0.", count: 24) + "2.3.2.0.0.0.d.f.ip6.arpa")
    }

    @Test func anInstanceNameIsOneEscapedLabel() throws {
        let names = try WideAreaNames.instance("Ann's Desk", in: DNSName("office.example"))
        #expect(names.presentation == #"Ann's\032Desk._share._tcp.office.example"#)
    }
}
