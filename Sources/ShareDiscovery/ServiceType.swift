/// DNS-SD service types.
public enum ServiceType {
    /// The type `share receive` publishes and `share peers` browses for.
    public static let share = "_share._tcp"

    /// Checks that a service type has the form `_name._tcp` or `_name._udp` (RFC 6763 §7).
    ///
    /// - Throws: ``DiscoveryError/invalidServiceType(_:)`` otherwise.
    public static func validate(_ type: String) throws(DiscoveryError) {
        let labels = type.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count == 2, labels[1] == "_tcp" || labels[1] == "_udp" else { throw .invalidServiceType(type) }
        let service = labels[0].utf8
        guard service.count >= 2, service.count <= 16, service.first == UInt8(ascii: "_") else {
            throw .invalidServiceType(type)
        }
        let body = service.dropFirst()
        let allowed = body.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
        }
        guard allowed, body.first != UInt8(ascii: "-"), body.last != UInt8(ascii: "-") else {
            throw .invalidServiceType(type)
        }
    }
}
