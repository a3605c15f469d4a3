/// A DNS record type (RFC 1035 §3.2.2 and later RFCs); a struct so unknown types round-trip.
public struct DNSRecordType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// An IPv4 address.
    public static let a = DNSRecordType(rawValue: 1)
    /// The start of a zone: its primary server and its timers.
    public static let soa = DNSRecordType(rawValue: 6)
    /// A pointer to another name (DNS-SD: a service type's instances, browse domains).
    public static let ptr = DNSRecordType(rawValue: 12)
    /// Text strings (DNS-SD: `key=value` attributes).
    public static let txt = DNSRecordType(rawValue: 16)
    /// An IPv6 address.
    public static let aaaa = DNSRecordType(rawValue: 28)
    /// A service's host and port.
    public static let srv = DNSRecordType(rawValue: 33)
    /// A transaction signature (RFC 8945).
    public static let tsig = DNSRecordType(rawValue: 250)
    /// Every type (queries, and RFC 2136 prerequisites and deletions).
    public static let any = DNSRecordType(rawValue: 255)

    public var description: String {
        switch self {
        case .a: "A"
        case .soa: "SOA"
        case .ptr: "PTR"
        case .txt: "TXT"
        case .aaaa: "AAAA"
        case .srv: "SRV"
        case .tsig: "TSIG"
        case .any: "ANY"
        default: "TYPE\(rawValue)"
        }
    }
}

/// A DNS class; RFC 2136 gives NONE and ANY special meanings in updates.
public struct DNSClass: RawRepresentable, Sendable, Hashable {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// The Internet.
    public static let internet = DNSClass(rawValue: 1)
    /// NONE: in an update, "this record must not exist" or "delete this record".
    public static let none = DNSClass(rawValue: 254)
    /// ANY: in an update, "some record exists" or "delete them all".
    public static let any = DNSClass(rawValue: 255)
}
