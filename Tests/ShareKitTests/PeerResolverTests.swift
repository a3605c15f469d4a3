import ShareDiscovery
import ShareKit
import Testing

@Suite struct PeerResolverTests {
    func peer(_ name: String, fp: String?, host: String = "h.local") -> NearbyPeer {
        var txt = ["v": "1"]
        if let fp { txt["fp"] = fp }
        let service = DiscoveredService(
            name: name, type: "_share._tcp", domain: "local", host: host, port: 47321,
            addresses: [ServiceAddress(ip: "10.0.0.1", family: .ipv4, interfaceName: "eth0", interfaceIndex: 2)],
            txt: txt, isLocal: false)
        return NearbyPeer(service: service, trust: TrustStore(), ownFingerprintPrefix: nil)
    }

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
        #expect(resolved("printer") == "error: the peer 'printer' advertises no valid fingerprint, so its identity cannot be checked; nothing was sent")
        #expect(resolved("junk").hasPrefix("error: the peer 'junk' advertises no valid fingerprint"))
        switch PeerResolver.resolve("desk", among: []) {
        case .success: Issue.record("resolved among no peers")
        case .failure(let failure): #expect("\(failure)".contains("no receivers were found nearby"))
        }
    }
}
