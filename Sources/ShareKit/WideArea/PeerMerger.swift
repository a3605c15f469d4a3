public import ShareDiscovery

/// One receiver as seen in every place it was found: on the local network (`local`) and in
/// wide-area DNS domains.
public struct MergedService: Sendable, Hashable {
    /// The merged service: name, host and TXT of the local-network sighting when there is one,
    /// else of the first domain; every address of every sighting.
    public var service: DiscoveredService
    /// Where it was seen: `local` first, then the domains in order.
    public var domains: [String]

    /// What identifies this entry: its advertised fingerprint prefix and port (the same receiver
    /// publishes the same ones everywhere), else nothing, then the domain and name of its first
    /// sighting (two entries may share a fingerprint, never a name in a domain).
    public var key: String { PeerMerger.entryKey(service) }
}

/// Merges the receivers found on the local network and in wide-area domains by fingerprint, so a
/// receiver seen in several places is listed once (with every address).
public enum PeerMerger {
    /// `local`, the domain of multicast DNS sightings.
    public static let localDomain = "local"

    /// The merged receivers, in the order of `services` (by first sighting). Sightings merge only
    /// across domains: two services in one domain with the same fingerprint and port (one of them
    /// lying, or a receiver seen twice under two names) stay two entries, so a forged service can
    /// neither hide a real one nor lend it its addresses.
    public static func merge(_ services: [DiscoveredService]) -> [MergedService] {
        var groups: [(key: String, services: [DiscoveredService])] = []
        for service in services {
            let key = key(service)
            if let index = groups.firstIndex(where: { group in
                group.key == key && !group.services.contains { $0.domain == service.domain }
            }) {
                groups[index].services.append(service)
            } else {
                groups.append((key, [service]))
            }
        }
        return groups.map { group in
            let sorted = group.services.sorted { rank($0.domain) < rank($1.domain) }
            var merged = sorted[0]
            var seen = Set(merged.addresses.map(\.ip))
            var addresses = merged.addresses
            for other in sorted.dropFirst() {
                for address in other.addresses where seen.insert(address.ip).inserted { addresses.append(address) }
                merged.isLocal = merged.isLocal || other.isLocal
            }
            merged.addresses = ServiceAddress.preferenceOrdered(addresses)
            return MergedService(service: merged, domains: sorted.map(\.domain))
        }
    }

    /// The key of the entry whose first sighting is `service` (``MergedService/key``).
    static func entryKey(_ service: DiscoveredService) -> String {
        "\(key(service)) \(service.domain) \(service.name)"
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
