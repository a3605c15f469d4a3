public import ShareTLS
import ShareDocuments
import ShareWire

/// What a receiver advertises in DNS-SD (docs/PROTOCOL.md §13): the protocol version and a
/// prefix of its fingerprint, nothing personal.
public enum Advertisement {
    /// Hex digits of the fingerprint advertised in TXT `fp`.
    public static let fingerprintPrefixLength = 32
    /// The protocol version advertised in TXT `v`.
    public static let protocolVersion = "\(Hello.currentVersion)"

    /// The TXT record for a receiver with `fingerprint`.
    public static func txt(for fingerprint: Fingerprint) -> [String: String] {
        ["v": protocolVersion, "fp": fingerprint.prefix(fingerprintPrefixLength)]
    }

    /// The advertised fingerprint prefix if it is well formed (16 to 64 hex digits), else nil.
    public static func fingerprintPrefix(in txt: [String: String]) -> String? {
        guard let value = txt["fp"]?.lowercased(), (16...64).contains(value.count),
            value.allSatisfy({ $0.isHexDigit })
        else { return nil }
        return value
    }

    /// Why a service cannot be a share receiver this machine talks to (docs/PROTOCOL.md §13), or nil:
    /// no protocol version, another version, no well-formed fingerprint prefix, or port 0.
    public static func incompatibility(txt: [String: String], port: UInt16) -> String? {
        guard let version = txt["v"] else { return "it advertises no protocol version" }
        guard version == protocolVersion else {
            let older = Int(version).map { $0 < Int(Hello.currentVersion) } ?? false
            return "it speaks share protocol \(DisplayText.escape(version)) and this share speaks \(protocolVersion)"
                + (older ? ": update share there" : "")
        }
        if fingerprintPrefix(in: txt) == nil { return "it advertises no valid fingerprint" }
        if port == 0 { return "it advertises port 0" }
        return nil
    }
}
