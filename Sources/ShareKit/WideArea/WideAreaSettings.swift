/// The wide-area DNS-SD part of `settings.json` (`"wideArea": {...}`): where `share receive`
/// publishes and where `share peers` and `share send` look, beyond the local network.
///
/// ```json
/// "wideArea": {
///     "domain": "office.example",
///     "dnsKey": "/home/ann/.config/share/desk.key",
///     "dnsServer": "192.0.2.53",
///     "browseDomains": ["lab.example"],
///     "discoverBrowseDomains": true,
///     "watchSeconds": 5,
///     "addressCheckSeconds": 5
/// }
/// ```
public struct WideAreaSettings: Codable, Sendable, Equatable {
    /// The domain `share receive` publishes in (as `--domain`), also browsed by `share peers`.
    public var domain: String?
    /// The TSIG key file (as `--dns-key`).
    public var dnsKey: String?
    /// The server updates go to (as `--dns-server`); default: the zone's primary (SOA MNAME).
    public var dnsServer: String?
    /// More domains `share peers` and `share send` look in.
    public var browseDomains: [String]?
    /// Whether to look for browse domains in DNS (RFC 6763 §11; default true).
    public var discoverBrowseDomains: Bool?
    /// How often `share peers --watch` asks DNS again, in seconds (default 5).
    public var watchSeconds: Double?
    /// How often `share receive` compares this machine's addresses with those in DNS, in seconds (default 5).
    public var addressCheckSeconds: Double?

    public init(
        domain: String? = nil, dnsKey: String? = nil, dnsServer: String? = nil, browseDomains: [String]? = nil,
        discoverBrowseDomains: Bool? = nil, watchSeconds: Double? = nil, addressCheckSeconds: Double? = nil
    ) {
        self.domain = domain
        self.dnsKey = dnsKey
        self.dnsServer = dnsServer
        self.browseDomains = browseDomains
        self.discoverBrowseDomains = discoverBrowseDomains
        self.watchSeconds = watchSeconds
        self.addressCheckSeconds = addressCheckSeconds
    }
}
