import Foundation
import ShareUnicode
public import ShareDiscovery
public import ShareTransport

/// A receiver seen on the network, with what this machine knows about it.
public struct NearbyPeer: Sendable, Hashable {
    /// The DNS-SD service as Avahi resolved it.
    public var service: DiscoveredService
    /// The fingerprint prefix it advertises, when well formed (a peer without one cannot be
    /// checked, so share will not send to it by name).
    public var fingerprintPrefix: String?
    /// Whether it is this machine's own receiver.
    public var isSelf: Bool
    /// The verified peer whose key its advertised fingerprint prefix names. Discovery proves no
    /// key (anyone can advertise any prefix), so this is a claim: only a connection that presents
    /// that key proves it, and a send to this peer requires exactly that key.
    public var claimsKeyOf: TrustStore.Peer?
    /// A verified peer whose name this (unverified) one uses or imitates (``TrustStore/namesake(of:fingerprint:)``):
    /// another machine, flagged as such.
    public var claimsNameOf: TrustStore.Peer?
    /// Whether its name mixes scripts (Latin with Cyrillic, say), as look-alike names do.
    public var mixesScripts: Bool
    /// Why share cannot send to it (an old or unknown protocol version, no fingerprint, port 0),
    /// or nil when it is a compatible receiver.
    public var incompatibility: String?
    /// Addresses it advertised that are not used, with why (a loopback address from the network,
    /// an address outside the network it was seen on).
    public var ignoredAddresses: [IgnoredAddress] = []

    /// An advertised address that is not used, and why.
    public struct IgnoredAddress: Sendable, Hashable {
        /// The address as advertised.
        public var address: String
        /// Why it is not used.
        public var reason: String
    }
    /// Where it was seen: `local` (the local network) and wide-area DNS domains.
    public var domains: [String]
    /// Seen only in wide-area DNS, where an entry can outlive its receiver, and no connection from
    /// this machine has proved its key yet (``WideAreaConfirmations``).
    public var isUnconfirmed = false

    /// Creates the view of `service`.
    public init(
        service: DiscoveredService, trust: TrustStore, ownFingerprintPrefix: String?,
        networks: InterfaceNetworks = .current()
    ) {
        var service = service
        var ignored: [IgnoredAddress] = []
        service.addresses = service.addresses.filter { address in
            guard let problem = networks.problem(with: address) else { return true }
            ignored.append(IgnoredAddress(address: address.ip, reason: problem))
            return false
        }
        ignoredAddresses = ignored
        incompatibility = Advertisement.incompatibility(txt: service.txt, port: service.port)
        self.service = service
        fingerprintPrefix = Advertisement.fingerprintPrefix(in: service.txt)
        let pin = fingerprintPrefix.flatMap { trust.peer(withPrefix: $0) }
        claimsKeyOf = pin
        isSelf = service.isLocal && fingerprintPrefix != nil && fingerprintPrefix == ownFingerprintPrefix
        claimsNameOf =
            pin == nil && !isSelf
            ? trust.peers.first {
                NameLookalikes.key(TrustStore.withoutAlternativeSuffix($0.name))
                    == NameLookalikes.key(TrustStore.withoutAlternativeSuffix(service.name))
            } : nil
        mixesScripts = NameLookalikes.mixesScripts(service.name)
        domains = [service.domain]
    }

    /// The service (device) name.
    public var name: String { service.name }

    /// Where to connect, best first (IPv4, routable IPv6, link-local with scope).
    public var endpoints: [Endpoint] {
        ServiceAddress.preferenceOrdered(service.addresses).map { Endpoint(host: $0.ip, port: service.port) }
    }
}

extension NearbyPeer {
    /// The host it advertises (`desk.local`).
    public var host: String { service.host }

    /// The port its receiver listens on.
    public var port: UInt16 { service.port }

    /// The addresses it was resolved to that are used (``ignoredAddresses`` are left out).
    public var addresses: [PeerAddress] { service.addresses.map(PeerAddress.init) }

    /// The protocol version it advertises (the TXT record's `v`), when it advertises one.
    public var version: String? { service.txt["v"] }
}
