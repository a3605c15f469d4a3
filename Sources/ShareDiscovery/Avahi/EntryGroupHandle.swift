internal import CShareAvahi

/// Owns an `AvahiEntryGroup` (the records of one published service); frees it in deinit,
/// which withdraws the records (the daemon sends goodbye packets).
///
/// > Warning: Use only on the poll thread or under the poll's lock, and release it before
/// > the client it belongs to.
final class EntryGroupHandle {
    /// The C entry group.
    private let pointer: OpaquePointer
    /// Whether a service has been added since creation or the last reset.
    private(set) var hasService = false

    /// Creates an empty group. `callback` reports its state changes and may run before this returns.
    ///
    /// The corresponding C function is `avahi_entry_group_new`.
    init(client: OpaquePointer, callback: AvahiEntryGroupCallback, userdata: UnsafeMutableRawPointer)
        throws(DiscoveryError)
    {
        guard let pointer = avahi.avahi_entry_group_new(client, callback, userdata) else {
            throw .avahi(
                operation: "create an entry group", code: AvahiErrorCode(rawValue: avahi.avahi_client_errno(client)))
        }
        self.pointer = pointer
    }

    deinit {
        _ = avahi.avahi_entry_group_free(pointer)
    }

    /// Adds a service on every interface and protocol, without the local-service cookie in
    /// its TXT record (kept minimal), and commits the group.
    ///
    /// - Returns: the Avahi error, `.collision` when another local client holds the name.
    ///
    /// The corresponding C functions are `avahi_entry_group_add_service_strlst` and `avahi_entry_group_commit`.
    func addServiceAndCommit(name: String, type: String, port: UInt16, txt: [[UInt8]]) -> AvahiErrorCode? {
        let list = AvahiTXTList(txt)
        let flags = AvahiPublishFlags(rawValue: AVAHI_PUBLISH_NO_COOKIE.rawValue)
        let added = avahi.avahi_entry_group_add_service_strlst(
            pointer, AvahiConstants.anyInterface, AvahiConstants.anyProtocol, flags, name, type, nil, nil, port,
            list.pointer)
        guard added >= 0 else { return AvahiErrorCode(rawValue: added) }
        hasService = true
        let committed = avahi.avahi_entry_group_commit(pointer)
        return committed >= 0 ? nil : AvahiErrorCode(rawValue: committed)
    }

    /// Withdraws the group's records so they can be added again (e.g. under a new name).
    ///
    /// The corresponding C function is `avahi_entry_group_reset`.
    func reset() {
        _ = avahi.avahi_entry_group_reset(pointer)
        hasService = false
    }
}
