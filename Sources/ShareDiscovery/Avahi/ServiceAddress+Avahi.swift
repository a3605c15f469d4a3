internal import CShareAvahi
internal import Glibc

extension ServiceAddress {
    /// Converts an address from a resolver callback, naming the interface it was seen on
    /// and giving an IPv6 link-local address its scope (`fe80::1%eth0`).
    ///
    /// - Returns: nil for an address of an unknown family or one Avahi cannot print.
    ///
    /// The corresponding C functions are `avahi_address_snprint` and `if_indextoname`.
    init?(avahi address: UnsafePointer<AvahiAddress>, interfaceIndex: AvahiIfIndex) {
        let family: Family
        switch address.pointee.proto {
        case AvahiConstants.ipv4: family = .ipv4
        case AvahiConstants.ipv6: family = .ipv6
        default: return nil
        }
        var buffer = [CChar](repeating: 0, count: 64)
        guard avahi.avahi_address_snprint(&buffer, buffer.count, address) != nil else { return nil }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let interfaceName = Self.interfaceName(interfaceIndex)
        self.init(ip: text, family: family, interfaceName: interfaceName, interfaceIndex: interfaceIndex)
        if family == .ipv6, isLinkLocal {
            ip = text + "%" + (interfaceName ?? String(interfaceIndex))
        }
    }

    /// The local name of an interface index, e.g. `eth0`.
    static func interfaceName(_ index: AvahiIfIndex) -> String? {
        guard index > 0 else { return nil }
        var name = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
        guard if_indextoname(UInt32(index), &name) != nil else { return nil }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
