/// Why the server closed a notification (the `NotificationClosed` signal).
public enum NotificationCloseReason: UInt32, Sendable {
    /// It expired.
    case expired = 1
    /// The user dismissed it.
    case dismissed = 2
    /// `CloseNotification` closed it.
    case closedByCall = 3
    /// Undefined or reserved reasons.
    case undefined = 4
}
