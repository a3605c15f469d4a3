public import ShareDNS
public import ShareDNSUpdate

/// Where and how a receiver publishes itself in a wide-area DNS domain.
public struct WideAreaPublication: Sendable {
    /// The domain, e.g. `office.example`.
    public var domain: DNSName
    /// The key that signs the updates.
    public var key: TSIGKey
    /// The server to send updates to (`ADDRESS`, `NAME`, `ADDRESS:PORT`, `[IPV6]:PORT`); nil: the
    /// primary server named in the zone's SOA record, found through the system's resolver.
    public var server: String?
    /// The records' time to live: how long a caching resolver may keep showing a stopped receiver.
    public var ttl: UInt32 = 60
    /// How often this machine's addresses are compared with what DNS has.
    public var addressCheckInterval: Duration = .seconds(5)
    /// How often the entry is checked to still be in DNS (someone may have removed it).
    public var presenceCheckInterval: Duration = .seconds(60)

    public init(domain: DNSName, key: TSIGKey, server: String? = nil) {
        self.domain = domain
        self.key = key
        self.server = server
    }
}
