import Foundation
public import ShareDiscovery
public import ShareTransport

/// A receiver seen on the network, with what this machine knows about it.
public struct NearbyPeer: Sendable, Hashable {
    /// The DNS-SD service as Avahi resolved it.
    public var service: DiscoveredService
    /// The fingerprint prefix it advertises, when well formed (a peer without one cannot be
    /// checked, so share will not send to it by name).
    public var fingerprintPrefix: String?
    /// Whether this machine knows the peer (its fingerprint is in the trust store).
    public var isKnown: Bool
    /// Whether it is this machine's own receiver.
    public var isSelf: Bool
    /// The name this machine verified it under, when its advertised key is a verified one.
    public var pinnedName: String?
    /// A verified peer whose name this (unverified) one uses, Avahi's ` #2` aside: another machine
    /// with the same name, flagged as such.
    public var claimsNameOf: TrustStore.Peer?

    /// Creates the view of `service`.
    public init(service: DiscoveredService, trust: TrustStore, ownFingerprintPrefix: String?) {
        self.service = service
        fingerprintPrefix = Advertisement.fingerprintPrefix(in: service.txt)
        let pin = fingerprintPrefix.flatMap { trust.peer(withPrefix: $0) }
        isKnown = pin != nil
        pinnedName = pin?.name
        isSelf = service.isLocal && fingerprintPrefix != nil && fingerprintPrefix == ownFingerprintPrefix
        let base = Self.baseName(service.name).lowercased()
        claimsNameOf =
            pin == nil && !isSelf
            ? trust.peers.first { $0.name.lowercased() == base || Self.baseName($0.name).lowercased() == base } : nil
    }

    /// `name` without the ` #2` Avahi appends after a collision.
    static func baseName(_ name: String) -> String {
        guard let hash = name.range(of: " #", options: .backwards),
            !name[hash.upperBound...].isEmpty, name[hash.upperBound...].allSatisfy(\.isNumber)
        else { return name }
        return String(name[..<hash.lowerBound])
    }

    /// The service (device) name.
    public var name: String { service.name }

    /// Where to connect, best first (IPv4, routable IPv6, link-local with scope).
    public var endpoints: [Endpoint] {
        ServiceAddress.preferenceOrdered(service.addresses).map { Endpoint(host: $0.ip, port: service.port) }
    }
}
