import ShareNotifications
import Synchronization

/// A running receiver's connection to the desktop's notification server, shared by the questions
/// it asks (``NotificationPrompter``) and the notices of a service (``TransferNotice``): made when
/// first needed, forgotten when it fails or is lost, and made again when next needed, at most once
/// every ``retryInterval`` (so a session without a server costs nothing per connection).
final class NotifierConnection: Sendable {
    /// How long after a failed attempt the next one may be made.
    static let retryInterval: Duration = .seconds(5)

    private let environment: [String: String]
    private let state = Mutex<State>(State())

    private struct State {
        var notifier: DesktopNotifier?
        var problem: NotificationError?
        var lastAttempt: ContinuousClock.Instant?
    }

    /// A connection for the session bus that `environment` names; nothing is connected yet.
    init(environment: [String: String]) {
        self.environment = environment
    }

    /// The notifier, connecting first when there is none (or it was lost); nil when there is no
    /// session bus or no server (``problem`` says why).
    func current() -> DesktopNotifier? {
        state.withLock { state -> DesktopNotifier? in
            if let notifier = state.notifier, notifier.isConnected { return notifier }
            state.notifier = nil
            if let last = state.lastAttempt, state.problem != nil, ContinuousClock.now - last < Self.retryInterval {
                return nil
            }
            state.lastAttempt = .now
            do throws(NotificationError) {
                state.notifier = try DesktopNotifier(environment: environment)
                state.problem = nil
            } catch {
                state.problem = error
            }
            return state.notifier
        }
    }

    /// Why the last attempt to connect failed (nil after one that worked).
    var problem: NotificationError? { state.withLock { $0.problem } }

    /// Forgets `notifier` after a call on it failed with `error`: the next ``current()`` connects again.
    func failed(_ notifier: DesktopNotifier, _ error: NotificationError) {
        state.withLock { state in
            guard state.notifier === notifier else { return }
            state.notifier = nil
            state.problem = error
        }
    }
}
