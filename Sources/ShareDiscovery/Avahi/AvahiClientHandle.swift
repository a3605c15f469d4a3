internal import CShareAvahi

/// Owns an `AvahiClient` (one D-Bus connection to avahi-daemon); frees it in deinit.
///
/// > Warning: Create, use and release it only on the poll thread or under the poll's lock
/// > (or after the poll has stopped), like every Avahi object.
final class AvahiClientHandle {
    /// The C client; freed in deinit, which also frees its entry groups, browsers and resolvers
    /// on the C side, so those handles must be released first.
    let pointer: OpaquePointer

    /// Outcome of `avahi_client_new`.
    enum Connection {
        case connected(AvahiClientHandle)
        case failed(AvahiErrorCode)
    }

    private init(pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        avahi.avahi_client_free(pointer)
    }

    /// Connects with `AVAHI_CLIENT_NO_FAIL`: succeeds while the D-Bus system bus is up, even
    /// when avahi-daemon is not (the client then waits in `AVAHI_CLIENT_CONNECTING`).
    /// `callback` may run before this returns.
    ///
    /// The corresponding C function is `avahi_client_new`.
    static func connect(
        poll: ThreadedPoll, callback: AvahiClientCallback, userdata: UnsafeMutableRawPointer
    ) -> Connection {
        var error: Int32 = 0
        guard let pointer = avahi.avahi_client_new(poll.api, AVAHI_CLIENT_NO_FAIL, callback, userdata, &error) else {
            return .failed(AvahiErrorCode(rawValue: error))
        }
        return .connected(AvahiClientHandle(pointer: pointer))
    }

    /// The client's state (`AVAHI_CLIENT_S_RUNNING`, `AVAHI_CLIENT_CONNECTING`, ...).
    var state: AvahiClientState { avahi.avahi_client_get_state(pointer) }

    /// The client's last error.
    var lastError: AvahiErrorCode { AvahiErrorCode(rawValue: avahi.avahi_client_errno(pointer)) }
}
