internal import CShareAvahi

/// Owns an `AvahiStringList` built from TXT byte strings; frees it in deinit.
final class AvahiTXTList {
    /// The C list, nil for an empty record.
    let pointer: UnsafeMutablePointer<AvahiStringList>?

    /// Builds a list holding `entries` in order.
    ///
    /// The corresponding C function is `avahi_string_list_add_arbitrary`.
    init(_ entries: [[UInt8]]) {
        var list: UnsafeMutablePointer<AvahiStringList>? = nil
        // add_arbitrary prepends, so add in reverse to keep the order.
        for entry in entries.reversed() {
            list = entry.withUnsafeBufferPointer { bytes in
                avahi.avahi_string_list_add_arbitrary(list, bytes.baseAddress, bytes.count)
            }
        }
        pointer = list
    }

    deinit {
        avahi.avahi_string_list_free(pointer)
    }

    /// Copies the byte strings out of a list Avahi owns (e.g. one passed to a resolver
    /// callback), skipping nothing: ``TXTRecord/decode(_:)`` judges them.
    static func entries(of list: UnsafeMutablePointer<AvahiStringList>?) -> [[UInt8]] {
        var entries: [[UInt8]] = []
        var node = list
        while let current = node {
            let size = avahi.avahi_string_list_get_size(current)
            if size == 0 {
                entries.append([])
            } else if let text = avahi.avahi_string_list_get_text(current) {
                entries.append(Array(UnsafeBufferPointer(start: text, count: size)))
            }
            node = avahi.avahi_string_list_get_next(current)
        }
        return entries
    }
}
