import ShareDiscovery
import ShareKit
import ShareTLS
import Testing

@Suite struct PeerResolverTests {
    func peer(_ name: String, fp: String?, host: String = "h.local") -> NearbyPeer {
        var txt = ["v": "2"]
        if let fp { txt["fp"] = fp }
        let service = DiscoveredService(
            name: name, type: "_share._tcp", domain: "local", host: host, port: 47321,
            addresses: [ServiceAddress(ip: "10.0.0.1", family: .ipv4, interfaceName: "eth0", interfaceIndex: 2)],
            txt: txt, isLocal: false)
        return NearbyPeer(service: service, trust: TrustStore(), ownFingerprintPrefix: nil, networks: Self.networks)
    }

    /// eth0 (index 2) on 10.0.0.0/24, and loopback (index 1).
    static let networks = InterfaceNetworks.fixed([(2, "10.0.0.7", 24, false), (1, "127.0.0.1", 8, true), (1, "::1", 128, true)])

    var peers: [NearbyPeer] {
        [
            peer("Desk", fp: "aaaa1111" + String(repeating: "0", count: 24)),
            peer("desktop", fp: "bbbb2222" + String(repeating: "0", count: 24)),
            peer("Laptop", fp: "aaaa3333" + String(repeating: "0", count: 24)),
            peer("printer", fp: nil),
            peer("junk", fp: "not hex at all, not hex at all!!"),
        ]
    }

    func resolved(_ query: String) -> String {
        switch PeerResolver.resolve(query, among: peers) {
        case .success(let peer): peer.name
        case .failure(let failure): "error: \(failure)"
        }
    }

    @Test func exactNamesWinInAnyCase() {
        #expect(resolved("desk") == "Desk")
        #expect(resolved("DESK") == "Desk")
        #expect(resolved("DeskTop") == "desktop")
    }

    @Test func aUniquePrefixNamesOnePeer() {
        #expect(resolved("lap") == "Laptop")
        #expect(resolved("de").hasPrefix("error: 'de' matches several peers: Desk (h.local, fingerprint aaaa1111), desktop (h.local, fingerprint bbbb2222)"))
    }

    @Test func aFingerprintPrefixNamesOnePeer() {
        #expect(resolved("bbbb") == "desktop")
        #expect(resolved("AAAA 3333") == "Laptop")
        #expect(resolved("aaaa").hasPrefix("error: 'aaaa' matches several peers"))
    }

    @Test func unknownAndUnverifiablePeersAreErrors() {
        #expect(resolved("phone") == "error: no peer named 'phone' is visible; visible peers: 'Desk', 'desktop', 'junk', 'Laptop', 'printer'")
        #expect(resolved("printer") == "error: the peer 'printer' is not a receiver this share can send to: it advertises no valid fingerprint; nothing was sent")
        #expect(resolved("junk").hasPrefix("error: the peer 'junk' is not a receiver this share can send to: it advertises no valid fingerprint"))
        switch PeerResolver.resolve("desk", among: []) {
        case .success: Issue.record("resolved among no peers")
        case .failure(let failure): #expect("\(failure)".contains("no receivers were found nearby"))
        }
    }

    /// Two machines verified as "vm" (key a) and "vm #2" (key b) that swapped names across a restart.
    func swapped() -> (trust: TrustStore, vm: NearbyPeer, vm2: NearbyPeer, a: Fingerprint, b: Fingerprint) {
        let a = Fingerprint(hex: String(repeating: "7a", count: 32))!
        let b = Fingerprint(hex: String(repeating: "b2", count: 32))!
        var trust = TrustStore()
        trust.pin(a, name: "vm", verification: .code)
        trust.pin(b, name: "vm #2", verification: .code)
        func row(_ name: String, _ key: Fingerprint, _ ip: String) -> NearbyPeer {
            let service = DiscoveredService(
                name: name, type: "_share._tcp", domain: "local", host: "vm.local", port: 47321,
                addresses: [ServiceAddress(ip: ip, family: .ipv4, interfaceName: "eth0", interfaceIndex: 2)],
                txt: ["v": "2", "fp": String(key.hex.prefix(32))], isLocal: false)
            return NearbyPeer(service: service, trust: trust, ownFingerprintPrefix: nil, networks: Self.networks)
        }
        return (trust, row("vm", b, "10.0.0.2"), row("vm #2", a, "10.0.0.3"), a, b)
    }

    @Test func aVerifiedKeyInDiscoveryIsOnlyAClaim() {
        let (_, vm, vm2, a, b) = swapped()
        #expect(vm.claimsKeyOf?.fingerprint == b.hex)
        #expect(vm.claimsKeyOf?.name == "vm #2")
        #expect(vm2.claimsKeyOf?.fingerprint == a.hex)
        #expect(vm2.claimsNameOf == nil)
    }

    @Test func aChosenRowGoesToItsServiceAndTheKeyItShowedWhateverItsNameMeans() throws {
        let (trust, vm, vm2, a, b) = swapped()
        // By name, "vm" means the key verified as "vm", which the row "vm" no longer has.
        guard case .failure = SendDestination.resolve("vm", among: [vm], trust: trust) else {
            Issue.record("the name 'vm' went to the key verified as 'vm #2'")
            return
        }
        // A row is a key: each goes to its own service and must present the key it advertised.
        let toVM = try SendDestination.chosen(vm).get()
        #expect(toVM.expectedKey == .verified(fingerprint: b.hex, name: "vm #2"))
        #expect(toVM.address == "10.0.0.2:47321")
        #expect(toVM.peerName == "vm")
        let toVM2 = try SendDestination.chosen(vm2).get()
        #expect(toVM2.expectedKey == .verified(fingerprint: a.hex, name: "vm"))
        #expect(toVM2.address == "10.0.0.3:47321")
        // An unverified row must present the key whose prefix it advertises.
        let stranger = peer("vm", fp: String(repeating: "c3", count: 16))
        #expect(try SendDestination.chosen(stranger).get().expectedKey == .advertised(prefix: String(repeating: "c3", count: 16), name: "vm"))
        #expect(throws: SendDestinationError.self) { try SendDestination.chosen(peer("printer", fp: nil)).get() }
    }

    func service(_ txt: [String: String], port: UInt16 = 47321, addresses: [ServiceAddress]) -> DiscoveredService {
        DiscoveredService(
            name: "x", type: "_share._tcp", domain: "local", host: "x.local", port: port, addresses: addresses, txt: txt,
            isLocal: false)
    }

    @Test func servicesThatAreNotCompatibleReceiversAreMarkedAndRefused() {
        let fp = "fp" as String
        let good = String(repeating: "a", count: 32)
        let eth0 = [ServiceAddress(ip: "10.0.0.9", family: .ipv4, interfaceName: "eth0", interfaceIndex: 2)]
        let cases: [([String: String], UInt16, String)] = [
            ([fp: good], 47321, "it advertises no protocol version"),
            (["v": "1", fp: good], 47321, "it speaks share protocol 1 and this share speaks 2: update share there"),
            (["v": "9", fp: good], 47321, "it speaks share protocol 9 and this share speaks 2"),
            (["v": "2"], 47321, "it advertises no valid fingerprint"),
            (["v": "2", fp: good], 0, "it advertises port 0"),
        ]
        for (txt, port, reason) in cases {
            let peer = NearbyPeer(
                service: service(txt, port: port, addresses: eth0), trust: TrustStore(), ownFingerprintPrefix: nil,
                networks: Self.networks)
            #expect(peer.incompatibility == reason)
            guard case .failure(.incompatible(_, let why)) = PeerResolver.resolve("x", among: [peer]) else {
                Issue.record("an incompatible peer was chosen")
                continue
            }
            #expect(why == reason)
        }
    }

    @Test func addressesMustBelongWhereTheServiceWasSeen() {
        let txt = ["v": "2", "fp": String(repeating: "a", count: 32)]
        let addresses = [
            ServiceAddress(ip: "127.0.0.1", family: .ipv4, interfaceName: "eth0", interfaceIndex: 2),
            ServiceAddress(ip: "::1", family: .ipv6, interfaceName: "eth0", interfaceIndex: 2),
            ServiceAddress(ip: "192.168.9.9", family: .ipv4, interfaceName: "eth0", interfaceIndex: 2),
            ServiceAddress(ip: "10.0.0.9", family: .ipv4, interfaceName: "eth0", interfaceIndex: 2),
            ServiceAddress(ip: "fe80::1%eth0", family: .ipv6, interfaceName: "eth0", interfaceIndex: 2),
        ]
        let peer = NearbyPeer(
            service: service(txt, addresses: addresses), trust: TrustStore(), ownFingerprintPrefix: nil, networks: Self.networks)
        #expect(peer.service.addresses.map(\.ip) == ["10.0.0.9", "fe80::1%eth0"])
        #expect(Set(peer.ignoredAddresses.map(\.address)) == ["127.0.0.1", "::1", "192.168.9.9"])
        #expect(peer.ignoredAddresses.first?.reason == "a responder on the network named this machine's own loopback")
        // Only loopback: nothing left to connect to, and the send says why.
        let onlyLoopback = NearbyPeer(
            service: service(txt, addresses: Array(addresses.prefix(1))), trust: TrustStore(), ownFingerprintPrefix: nil,
            networks: Self.networks)
        guard case .failure(let failure) = PeerResolver.resolve("x", among: [onlyLoopback]) else {
            Issue.record("a peer with only a loopback address was chosen")
            return
        }
        #expect("\(failure)".contains("advertises no address share will use (127.0.0.1: a responder on the network named"))
        // The loopback interface itself may name loopback (this machine's own receiver).
        let own = NearbyPeer(
            service: service(txt, addresses: [ServiceAddress(ip: "127.0.0.1", family: .ipv4, interfaceName: "lo", interfaceIndex: 1)]),
            trust: TrustStore(), ownFingerprintPrefix: nil, networks: Self.networks)
        #expect(own.ignoredAddresses.isEmpty)
    }
}
