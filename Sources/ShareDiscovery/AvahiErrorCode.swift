internal import CShareAvahi

/// An error code reported by Avahi, such as "Daemon not running" or "Name collision".
///
/// A struct rather than an enum, so a code this wrapper does not name still round-trips.
/// Avahi's constants come from an anonymous C enum that imports as `Int`; they are
/// converted here, once.
///
/// The corresponding C type is the anonymous enum of `AVAHI_ERR_*` constants in
/// `avahi-common/error.h`.
public struct AvahiErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The C value, negative for errors (`AVAHI_OK` is 0).
    public var rawValue: Int32

    /// Wraps a C error value.
    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    init(_ constant: Int) {
        self.rawValue = Int32(truncatingIfNeeded: constant)
    }

    /// Avahi's own one-line text for the code, e.g. "Daemon not running".
    ///
    /// The corresponding C function is `avahi_strerror`.
    public var description: String {
        guard let text = avahi.avahi_strerror(rawValue) else { return "Avahi error \(rawValue)" }
        return String(cString: text)
    }

    /// Generic failure. Corresponds to `AVAHI_ERR_FAILURE`.
    public static let failure = AvahiErrorCode(AVAHI_ERR_FAILURE)
    /// The object was in a state that does not allow the call. Corresponds to `AVAHI_ERR_BAD_STATE`.
    public static let badState = AvahiErrorCode(AVAHI_ERR_BAD_STATE)
    /// A name is already in use on the network. Corresponds to `AVAHI_ERR_COLLISION`.
    public static let collision = AvahiErrorCode(AVAHI_ERR_COLLISION)
    /// A resource record was refused, e.g. an oversized TXT string. Corresponds to `AVAHI_ERR_INVALID_RECORD`.
    public static let invalidRecord = AvahiErrorCode(AVAHI_ERR_INVALID_RECORD)
    /// The service name is not valid. Corresponds to `AVAHI_ERR_INVALID_SERVICE_NAME`.
    public static let invalidServiceName = AvahiErrorCode(AVAHI_ERR_INVALID_SERVICE_NAME)
    /// The service type is not valid. Corresponds to `AVAHI_ERR_INVALID_SERVICE_TYPE`.
    public static let invalidServiceType = AvahiErrorCode(AVAHI_ERR_INVALID_SERVICE_TYPE)
    /// A lookup did not finish in time. Corresponds to `AVAHI_ERR_TIMEOUT`.
    public static let timeout = AvahiErrorCode(AVAHI_ERR_TIMEOUT)
    /// The daemon refused another client. Corresponds to `AVAHI_ERR_TOO_MANY_CLIENTS`.
    public static let tooManyClients = AvahiErrorCode(AVAHI_ERR_TOO_MANY_CLIENTS)
    /// The daemon refused another object. Corresponds to `AVAHI_ERR_TOO_MANY_OBJECTS`.
    public static let tooManyObjects = AvahiErrorCode(AVAHI_ERR_TOO_MANY_OBJECTS)
    /// D-Bus refused the call. Corresponds to `AVAHI_ERR_ACCESS_DENIED`.
    public static let accessDenied = AvahiErrorCode(AVAHI_ERR_ACCESS_DENIED)
    /// An unexpected D-Bus error, e.g. no system bus. Corresponds to `AVAHI_ERR_DBUS_ERROR`.
    public static let dbusError = AvahiErrorCode(AVAHI_ERR_DBUS_ERROR)
    /// The connection to the daemon was lost. Corresponds to `AVAHI_ERR_DISCONNECTED`.
    public static let disconnected = AvahiErrorCode(AVAHI_ERR_DISCONNECTED)
    /// Out of memory. Corresponds to `AVAHI_ERR_NO_MEMORY`.
    public static let noMemory = AvahiErrorCode(AVAHI_ERR_NO_MEMORY)
    /// avahi-daemon (or the D-Bus system bus itself) is not running. Corresponds to `AVAHI_ERR_NO_DAEMON`.
    public static let noDaemon = AvahiErrorCode(AVAHI_ERR_NO_DAEMON)
    /// The daemon's D-Bus API version is not supported. Corresponds to `AVAHI_ERR_VERSION_MISMATCH`.
    public static let versionMismatch = AvahiErrorCode(AVAHI_ERR_VERSION_MISMATCH)
    /// Not found. Corresponds to `AVAHI_ERR_NOT_FOUND`.
    public static let notFound = AvahiErrorCode(AVAHI_ERR_NOT_FOUND)
}
