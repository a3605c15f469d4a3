internal import CShareAvahi

/// Owns an `AvahiServiceResolver` for one instance on one interface and protocol; frees it
/// in deinit. While it lives, Avahi reports changes of the instance's data again.
///
/// > Warning: Use only on the poll thread or under the poll's lock, and release it before its client.
final class ServiceResolverHandle {
    /// The C resolver; the browser core matches callbacks to instances by this pointer.
    let pointer: OpaquePointer

    /// Resolves `name` on `interface` over `protocol`, asking for an address of the same
    /// family as the protocol (A over IPv4 mDNS, AAAA over IPv6 mDNS), so that each
    /// protocol contributes its own address.
    ///
    /// - Returns: nil when Avahi refuses to create the resolver (the instance is then skipped).
    ///
    /// The corresponding C function is `avahi_service_resolver_new`.
    init?(
        client: OpaquePointer, interface: AvahiIfIndex, protocol: AvahiProtocol, name: UnsafePointer<CChar>,
        type: UnsafePointer<CChar>, domain: UnsafePointer<CChar>, callback: AvahiServiceResolverCallback,
        userdata: UnsafeMutableRawPointer
    ) {
        guard
            let pointer = avahi.avahi_service_resolver_new(
                client, interface, `protocol`, name, type, domain, `protocol`, AvahiLookupFlags(rawValue: 0),
                callback, userdata)
        else { return nil }
        self.pointer = pointer
    }

    deinit {
        _ = avahi.avahi_service_resolver_free(pointer)
    }
}
