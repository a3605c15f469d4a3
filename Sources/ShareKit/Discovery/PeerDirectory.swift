public import ShareDiscovery
import ShareTLS

/// Turns what Avahi found into peers as this machine sees them (known? this machine's own?).
public enum PeerDirectory {
    /// The peers among `services`, sorted by name.
    /// - Throws: ``ConfigurationError`` when the trust store cannot be read (it fails closed).
    public static func nearby(_ services: [DiscoveredService], node: LocalNode) throws(ConfigurationError) -> [NearbyPeer] {
        let trust = try TrustStore.load(from: node.paths.configDirectory)
        let own = node.identity.fingerprint.prefix(Advertisement.fingerprintPrefixLength)
        return services.map { NearbyPeer(service: $0, trust: trust, ownFingerprintPrefix: own) }
            .sorted { $0.name.lowercased() < $1.name.lowercased() }
    }

    /// The peers among receivers merged from the local network and wide-area domains
    /// (``PeerMerger``), with where each was seen and whether a wide-area one is still unconfirmed.
    public static func nearby(_ merged: [MergedService], node: LocalNode) throws(ConfigurationError) -> [NearbyPeer] {
        let confirmations = WideAreaConfirmations(dataDirectory: node.paths.dataDirectory)
        let byName = try nearby(merged.map(\.service), node: node)
        let domains = Dictionary(merged.map { ($0.key, $0.domains) }, uniquingKeysWith: { first, _ in first })
        return byName.map { peer in
            var peer = peer
            peer.domains = domains[PeerMerger.entryKey(peer.service)] ?? peer.domains
            peer.isUnconfirmed = !peer.domains.contains(PeerMerger.localDomain) && !confirmations.confirms(peer)
            return peer
        }
    }
}
