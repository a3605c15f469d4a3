/// How a question asked with ``DesktopNotifier/ask(_:accept:decline:timeout:cancellation:shown:)`` ended.
public enum NotificationAnswer: Sendable, Equatable {
    /// The user clicked the accepting action.
    case accepted
    /// The user clicked the declining action.
    case declined
    /// The notification was dismissed (by the user, or closed by the server) without an answer.
    case closed
    /// Nobody answered in time: the server let it expire, or the time limit passed (the
    /// notification is then closed).
    case expired
    /// ``NotificationCancellation/cancel()`` was called (the notification is then closed).
    case cancelled
}
