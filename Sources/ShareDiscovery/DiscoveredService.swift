/// A receiver found on the LAN, merged over every interface and protocol it was seen on.
public struct DiscoveredService: Sendable, Hashable, Codable {
    /// The instance name, i.e. the device name the receiver chose (e.g. "desk", or "desk #2"
    /// after a name collision).
    public var name: String
    /// The service type, `_share._tcp` for `share`.
    public var type: String
    /// The domain, `local` for multicast DNS.
    public var domain: String
    /// The host name the service points at, e.g. `desk-pc.local`.
    public var host: String
    /// The TCP port the receiver listens on.
    public var port: UInt16
    /// Every address resolved for the service, in the order to try them (see ``ServiceAddress``).
    public var addresses: [ServiceAddress]
    /// The TXT attributes, keys lowercased (see ``TXTRecord``).
    public var txt: [String: String]
    /// True when the service is published by this machine, e.g. its own `share receive`.
    public var isLocal: Bool

    /// Creates a discovered service; `addresses` is put into preference order.
    public init(
        name: String, type: String, domain: String, host: String, port: UInt16, addresses: [ServiceAddress],
        txt: [String: String], isLocal: Bool
    ) {
        self.name = name
        self.type = type
        self.domain = domain
        self.host = host
        self.port = port
        self.addresses = ServiceAddress.preferenceOrdered(addresses)
        self.txt = txt
        self.isLocal = isLocal
    }
}
