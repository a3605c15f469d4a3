internal import CShareAvahi

/// Avahi constants that come from anonymous C enums (imported as `Int`), converted once to
/// the C types the functions take.
enum AvahiConstants {
    /// Every interface. Corresponds to `AVAHI_IF_UNSPEC`.
    static let anyInterface = AvahiIfIndex(AVAHI_IF_UNSPEC)
    /// IPv4 and IPv6. Corresponds to `AVAHI_PROTO_UNSPEC`.
    static let anyProtocol = AvahiProtocol(AVAHI_PROTO_UNSPEC)
    /// IPv4. Corresponds to `AVAHI_PROTO_INET`.
    static let ipv4 = AvahiProtocol(AVAHI_PROTO_INET)
    /// IPv6. Corresponds to `AVAHI_PROTO_INET6`.
    static let ipv6 = AvahiProtocol(AVAHI_PROTO_INET6)
}
