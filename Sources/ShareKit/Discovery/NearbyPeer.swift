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
    /// Where it was seen: `local` (the local network) and wide-area DNS domains.
    public var domains: [String]
    /// Seen only in wide-area DNS, where an entry can outlive its receiver, and no connection from
    /// this machine has proved its key yet (``WideAreaConfirmations``).
    public var isUnconfirmed = false

    /// Creates the view of `service`.
    public init(service: DiscoveredService, trust: TrustStore, ownFingerprintPrefix: String?) {
        self.service = service
        fingerprintPrefix = Advertisement.fingerprintPrefix(in: service.txt)
        isKnown = fingerprintPrefix.flatMap { trust.peer(withPrefix: $0) } != nil
        isSelf = service.isLocal && fingerprintPrefix != nil && fingerprintPrefix == ownFingerprintPrefix
        domains = [service.domain]
    }

    /// The service (device) name.
    public var name: String { service.name }

    /// Where to connect, best first (IPv4, routable IPv6, link-local with scope).
    public var endpoints: [Endpoint] {
        ServiceAddress.preferenceOrdered(service.addresses).map { Endpoint(host: $0.ip, port: service.port) }
    }
}
