internal import CShareDBus

/// A value in a D-Bus message, as far as the Notifications specification needs them.
enum BusValue: Sendable, Equatable {
    case string(String)
    case uint32(UInt32)
    case int32(Int32)
    case byte(UInt8)
    case boolean(Bool)
    /// An array (`as` reads as an array of strings).
    case array([BusValue])
    /// Anything else, by its type code.
    case other(Int32)

    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    var uint32: UInt32? {
        if case .uint32(let value) = self { return value }
        return nil
    }
}

/// A hint's value in a Notify call (`a{sv}`).
enum BusVariant: Sendable {
    case byte(UInt8)
    case string(String)
    case boolean(Bool)
}

/// One D-Bus message (libdbus `DBusMessage`), owned: unreferenced when released.
///
/// Built and read only on the connection's thread or before it is handed to it.
final class BusMessage: @unchecked Sendable {
    // @unchecked: a message is built by one thread, then read by one thread; never shared.
    let pointer: OpaquePointer

    /// Takes over a reference the caller owns.
    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        libdbus.dbus_message_unref(pointer)
    }

    /// A method call to `destination`.
    static func methodCall(destination: String, path: String, interface: String, method: String) -> BusMessage {
        guard let message = libdbus.dbus_message_new_method_call(destination, path, interface, method) else {
            fatalError("libdbus: out of memory")
        }
        return BusMessage(owning: message)
    }

    /// The unique bus name of its sender.
    var sender: String? {
        libdbus.dbus_message_get_sender(pointer).map { String(cString: $0) }
    }

    /// Whether it is the signal `interface.member`.
    func isSignal(_ interface: String, _ member: String) -> Bool {
        libdbus.dbus_message_is_signal(pointer, interface, member) != 0
    }

    /// The error name and text of an error reply, nil for other messages.
    var error: (name: String, message: String)? {
        guard libdbus.dbus_message_get_type(pointer) == 3 /* DBUS_MESSAGE_TYPE_ERROR */ else { return nil }
        let name =
            libdbus.dbus_message_get_error_name(pointer).map { String(cString: $0) }
            ?? "org.freedesktop.DBus.Error.Failed"
        return (name, arguments().first?.string ?? "")
    }

    // MARK: Writing

    /// Appends arguments in order.
    func append(_ values: [Argument]) {
        var iterator = DBusMessageIter()
        libdbus.dbus_message_iter_init_append(pointer, &iterator)
        for value in values { Self.append(value, to: &iterator) }
    }

    /// What ``append(_:)`` writes.
    enum Argument {
        case string(String)
        case uint32(UInt32)
        case int32(Int32)
        case strings([String])
        case hints([(String, BusVariant)])
    }

    private static func append(_ argument: Argument, to iterator: inout DBusMessageIter) {
        switch argument {
        case .string(let text): appendString(text, to: &iterator)
        case .uint32(var value): _ = libdbus.dbus_message_iter_append_basic(&iterator, CShareDBus_TYPE_UINT32(), &value)
        case .int32(var value): _ = libdbus.dbus_message_iter_append_basic(&iterator, CShareDBus_TYPE_INT32(), &value)
        case .strings(let texts):
            var array = DBusMessageIter()
            _ = libdbus.dbus_message_iter_open_container(&iterator, CShareDBus_TYPE_ARRAY(), "s", &array)
            for text in texts { appendString(text, to: &array) }
            _ = libdbus.dbus_message_iter_close_container(&iterator, &array)
        case .hints(let hints):
            var array = DBusMessageIter()
            _ = libdbus.dbus_message_iter_open_container(&iterator, CShareDBus_TYPE_ARRAY(), "{sv}", &array)
            for (key, value) in hints {
                var entry = DBusMessageIter()
                _ = libdbus.dbus_message_iter_open_container(&array, CShareDBus_TYPE_DICT_ENTRY(), nil, &entry)
                appendString(key, to: &entry)
                var variant = DBusMessageIter()
                switch value {
                case .byte(var byte):
                    _ = libdbus.dbus_message_iter_open_container(&entry, CShareDBus_TYPE_VARIANT(), "y", &variant)
                    _ = libdbus.dbus_message_iter_append_basic(&variant, CShareDBus_TYPE_BYTE(), &byte)
                case .string(let text):
                    _ = libdbus.dbus_message_iter_open_container(&entry, CShareDBus_TYPE_VARIANT(), "s", &variant)
                    appendString(text, to: &variant)
                case .boolean(let flag):
                    var value: dbus_bool_t = flag ? 1 : 0
                    _ = libdbus.dbus_message_iter_open_container(&entry, CShareDBus_TYPE_VARIANT(), "b", &variant)
                    _ = libdbus.dbus_message_iter_append_basic(&variant, CShareDBus_TYPE_BOOLEAN(), &value)
                }
                _ = libdbus.dbus_message_iter_close_container(&entry, &variant)
                _ = libdbus.dbus_message_iter_close_container(&array, &entry)
            }
            _ = libdbus.dbus_message_iter_close_container(&iterator, &array)
        }
    }

    /// D-Bus strings are UTF-8 without NUL: a NUL becomes U+FFFD.
    private static func appendString(_ text: String, to iterator: inout DBusMessageIter) {
        let clean = text.contains("\0") ? String(text.map { $0 == "\0" ? "\u{FFFD}" : $0 }) : text
        clean.withCString { cString in
            var pointer: UnsafePointer<CChar>? = cString
            _ = libdbus.dbus_message_iter_append_basic(&iterator, CShareDBus_TYPE_STRING(), &pointer)
        }
    }

    // MARK: Reading

    /// The message's arguments.
    func arguments() -> [BusValue] {
        var iterator = DBusMessageIter()
        guard libdbus.dbus_message_iter_init(pointer, &iterator) != 0 else { return [] }
        return Self.values(&iterator)
    }

    private static func values(_ iterator: inout DBusMessageIter) -> [BusValue] {
        var values: [BusValue] = []
        while true {
            let type = libdbus.dbus_message_iter_get_arg_type(&iterator)
            if type == CShareDBus_TYPE_INVALID() { break }
            values.append(value(of: type, &iterator))
            if libdbus.dbus_message_iter_next(&iterator) == 0 { break }
        }
        return values
    }

    private static func value(of type: Int32, _ iterator: inout DBusMessageIter) -> BusValue {
        switch type {
        case CShareDBus_TYPE_STRING():
            var pointer: UnsafePointer<CChar>?
            libdbus.dbus_message_iter_get_basic(&iterator, &pointer)
            return .string(pointer.map { String(cString: $0) } ?? "")
        case CShareDBus_TYPE_UINT32():
            var value: UInt32 = 0
            libdbus.dbus_message_iter_get_basic(&iterator, &value)
            return .uint32(value)
        case CShareDBus_TYPE_INT32():
            var value: Int32 = 0
            libdbus.dbus_message_iter_get_basic(&iterator, &value)
            return .int32(value)
        case CShareDBus_TYPE_BYTE():
            var value: UInt8 = 0
            libdbus.dbus_message_iter_get_basic(&iterator, &value)
            return .byte(value)
        case CShareDBus_TYPE_BOOLEAN():
            var value: dbus_bool_t = 0
            libdbus.dbus_message_iter_get_basic(&iterator, &value)
            return .boolean(value != 0)
        case CShareDBus_TYPE_ARRAY():
            var inner = DBusMessageIter()
            libdbus.dbus_message_iter_recurse(&iterator, &inner)
            return .array(values(&inner))
        default:
            return .other(type)
        }
    }
}
