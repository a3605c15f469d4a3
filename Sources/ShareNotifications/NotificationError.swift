/// Why a desktop notification could not be shown or answered.
public enum NotificationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No session bus address: neither `DBUS_SESSION_BUS_ADDRESS` nor `$XDG_RUNTIME_DIR/bus`.
    case noSessionBus
    /// The session bus at `address` could not be reached.
    case cannotConnect(address: String, reason: String)
    /// No notification server answers on the session bus (nobody owns, or can be started as,
    /// `org.freedesktop.Notifications`).
    case noServer(reason: String)
    /// A call failed (the bus's or the server's error), or got no answer in time.
    case callFailed(method: String, reason: String)
    /// The connection to the bus was lost or closed.
    case disconnected

    public var description: String {
        switch self {
        case .noSessionBus:
            "there is no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set and $XDG_RUNTIME_DIR/bus does not exist)"
        case .cannotConnect(let address, let reason): "cannot connect to the D-Bus session bus at \(address): \(reason)"
        case .noServer(let reason): "no desktop notification server answers on the session bus (\(reason))"
        case .callFailed(let method, let reason): "the notification server did not answer \(method): \(reason)"
        case .disconnected: "the connection to the D-Bus session bus was lost"
        }
    }
}
