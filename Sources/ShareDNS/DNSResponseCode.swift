/// The result code of a DNS answer (RFC 1035 §4.1.1, RFC 2136 §2.2).
public struct DNSResponseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let noError = DNSResponseCode(rawValue: 0)
    public static let formatError = DNSResponseCode(rawValue: 1)
    public static let serverFailure = DNSResponseCode(rawValue: 2)
    /// The name does not exist.
    public static let nameError = DNSResponseCode(rawValue: 3)
    public static let notImplemented = DNSResponseCode(rawValue: 4)
    public static let refused = DNSResponseCode(rawValue: 5)
    /// Update prerequisite: a name that should not exist does.
    public static let nameExists = DNSResponseCode(rawValue: 6)
    /// Update prerequisite: a record set that should not exist does.
    public static let recordSetExists = DNSResponseCode(rawValue: 7)
    /// Update prerequisite: a record set that should exist does not.
    public static let recordSetMissing = DNSResponseCode(rawValue: 8)
    /// The server is not authoritative for the zone, or the signature was not accepted.
    public static let notAuthorized = DNSResponseCode(rawValue: 9)
    /// A name is outside the zone of the update.
    public static let notZone = DNSResponseCode(rawValue: 10)

    /// The mnemonic of the RFCs (NOERROR, NXDOMAIN, YXDOMAIN...).
    public var description: String {
        switch self {
        case .noError: "NOERROR"
        case .formatError: "FORMERR"
        case .serverFailure: "SERVFAIL"
        case .nameError: "NXDOMAIN"
        case .notImplemented: "NOTIMP"
        case .refused: "REFUSED"
        case .nameExists: "YXDOMAIN"
        case .recordSetExists: "YXRRSET"
        case .recordSetMissing: "NXRRSET"
        case .notAuthorized: "NOTAUTH"
        case .notZone: "NOTZONE"
        default: "RCODE\(rawValue)"
        }
    }
}
