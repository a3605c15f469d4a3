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
}
