public import ShareDiscovery

/// One receiver as seen in every place it was found: on the local network (`local`) and in
/// wide-area DNS domains.
public struct MergedService: Sendable, Hashable {
    /// The merged service: name, host and TXT of the local-network sighting when there is one,
    /// else of the first domain; every address of every sighting.
    public var service: DiscoveredService
    /// Where it was seen: `local` first, then the domains in order.
    public var domains: [String]

    /// What identifies it across sightings: its advertised fingerprint prefix and port (the same
    /// receiver publishes the same ones everywhere), else its domain and name.
    public var key: String { PeerMerger.key(service) }
}

/// Merges the receivers found on the local network and in wide-area domains by fingerprint, so a
/// receiver seen in several places is listed once (with every address).
public enum PeerMerger {
    /// `local`, the domain of multicast DNS sightings.
    public static let localDomain = "local"

    /// The merged receivers, in the order of `services` (by first sighting).
    public static func merge(_ services: [DiscoveredService]) -> [MergedService] {
        var order: [String] = []
        var groups: [String: [DiscoveredService]] = [:]
        for service in services {
            let key = key(service)
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(service)
        }
        return order.compactMap { key in
            guard let group = groups[key] else { return nil }
            let sorted = group.sorted { rank($0.domain) < rank($1.domain) }
            var merged = sorted[0]
            var seen = Set(merged.addresses.map(\.ip))
            var addresses = merged.addresses
            for other in sorted.dropFirst() {
                for address in other.addresses where seen.insert(address.ip).inserted { addresses.append(address) }
                merged.isLocal = merged.isLocal || other.isLocal
            }
            merged.addresses = ServiceAddress.preferenceOrdered(addresses)
            var domains: [String] = []
            for service in sorted where !domains.contains(service.domain) { domains.append(service.domain) }
            return MergedService(service: merged, domains: domains)
        }
    }

    static func key(_ service: DiscoveredService) -> String {
        if let prefix = Advertisement.fingerprintPrefix(in: service.txt) { return "fp \(prefix) \(service.port)" }
        return "name \(service.domain) \(service.name)"
    }

    /// `local` before every domain, then domains by name.
    private static func rank(_ domain: String) -> (Int, String) {
        (domain == localDomain ? 0 : 1, domain)
    }
}
