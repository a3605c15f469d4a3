/// Whether desktop notifications can be shown here (``DesktopNotifier/availability(environment:timeout:)``).
public enum NotificationAvailability: Sendable, Equatable {
    /// A session bus and a notification server answered.
    case available(NotificationServer)
    /// There is no session bus (or it cannot be reached): why.
    case noSessionBus(String)
    /// There is a session bus but no notification server answers on it: why.
    case noServer(String)
}
