internal import CShareAvahi

/// Owns an `AvahiServiceBrowser` for one service type on every interface and protocol;
/// frees it in deinit.
///
/// > Warning: Use only on the poll thread or under the poll's lock, and release it before its client.
final class ServiceBrowserHandle {
    /// The C browser.
    private let pointer: OpaquePointer

    /// Starts browsing for `type` in the default domain. `callback` reports instances.
    ///
    /// The corresponding C function is `avahi_service_browser_new`.
    init(
        client: AvahiClientHandle, type: String, callback: AvahiServiceBrowserCallback,
        userdata: UnsafeMutableRawPointer
    )
        throws(DiscoveryError)
    {
        guard
            let pointer = avahi.avahi_service_browser_new(
                client.pointer, AvahiConstants.anyInterface, AvahiConstants.anyProtocol, type, nil,
                AvahiLookupFlags(rawValue: 0), callback,
                userdata)
        else {
            throw .avahi(operation: "browse for \(type) services", code: client.lastError)
        }
        self.pointer = pointer
    }

    deinit {
        _ = avahi.avahi_service_browser_free(pointer)
    }
}
