import Dispatch
public import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A client of the desktop's notification server (the freedesktop Notifications specification,
/// `org.freedesktop.Notifications` on the session bus), through libdbus.
///
/// ```swift
/// let notifier = try DesktopNotifier()
/// let answer = try notifier.ask(
///     DesktopNotification(summary: "desk wants to send 2 files", body: "Report.pdf, 1.2 MB",
///                         actions: [.init(key: "accept", label: "Accept"), .init(key: "decline", label: "Decline")]),
///     accept: "accept", decline: "decline", timeout: .seconds(60))
/// ```
///
/// - ``notify(_:onAction:onClose:)`` shows a notification and reports its buttons and its end.
/// - ``ask(_:accept:decline:timeout:cancellation:shown:)`` shows one and blocks until it is answered,
///   dismissed, expires, or is cancelled; any thread may call it (the async overload holds no
///   thread of the cooperative pool).
/// - ``availability(environment:timeout:)`` tells quickly whether there is a session bus and a
///   server, so a caller can fall back to a terminal prompt.
///
/// Thread-safe. One private connection to the session bus, served by a thread of its own
/// (``BusConnection``); signals are accepted only from the server's unique bus name.
/// ``disconnect()`` (or releasing the notifier) ends it.
public final class DesktopNotifier: Sendable {
    /// The server's bus name, object and interface.
    static let service = "org.freedesktop.Notifications"
    static let path = "/org/freedesktop/Notifications"

    /// The server, as it described itself when the notifier connected.
    public let server: NotificationServer
    private let bus: BusConnection
    private let shared: Shared
    private let callTimeout: Duration

    /// What the connection's thread and the callers share.
    private final class Shared: Sendable {
        let owner = Mutex<String?>(nil)
        let watchers = Mutex<[UInt32: Watcher]>([:])
        let connected = Mutex(true)
    }

    /// What to do when a notification's signals come.
    private struct Watcher: Sendable {
        var onAction: (@Sendable (String) -> Void)? = nil
        var onClose: (@Sendable (NotificationCloseReason) -> Void)? = nil
    }

    /// Connects to the session bus and asks the notification server who it is and what it can do
    /// (which starts it when it is D-Bus activatable).
    ///
    /// - Parameters:
    ///   - environment: where the session bus address comes from (``sessionBusAddress(environment:)``).
    ///   - timeout: how long the server may take to answer each call.
    /// - Throws: ``NotificationError/noSessionBus``, ``NotificationError/cannotConnect(address:reason:)``
    ///   or ``NotificationError/noServer(reason:)``.
    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment, timeout: Duration = .seconds(2)
    ) throws(NotificationError) {
        guard let address = Self.sessionBusAddress(environment: environment) else { throw .noSessionBus }
        let shared = Shared()
        let bus = try BusConnection(
            address: address,
            matchRules: ["ActionInvoked", "NotificationClosed"].map {
                "type='signal',sender='\(Self.service)',path='\(Self.path)',interface='\(Self.service)',member='\($0)'"
            },
            signals: { Self.deliver($0, to: shared) },
            lost: { Self.lose(shared) })
        self.bus = bus
        self.shared = shared
        self.callTimeout = timeout
        do throws(NotificationError) {
            let information = try bus.callAndWait(
                Self.call("GetServerInformation"), method: "GetServerInformation", timeout: timeout)
            let capabilities = try bus.callAndWait(
                Self.call("GetCapabilities"), method: "GetCapabilities", timeout: timeout)
            let names = information.arguments().compactMap(\.string)
            guard names.count == 4, case .array(let list)? = capabilities.arguments().first else {
                throw NotificationError.noServer(reason: "the server's answer is not what the specification describes")
            }
            server = NotificationServer(
                name: names[0], vendor: names[1], version: names[2], specificationVersion: names[3],
                capabilities: Set(list.compactMap(\.string)))
            let owner = Self.busCall("GetNameOwner", [.string(Self.service)])
            let ownerName = try bus.callAndWait(owner, method: "GetNameOwner", timeout: timeout).arguments().first?
                .string
            shared.owner.withLock { $0 = ownerName }
        } catch {
            bus.close()
            if case .callFailed(_, let reason) = error { throw .noServer(reason: reason) }
            throw error
        }
    }

    deinit {
        bus.close()
    }

    /// The session bus address: `DBUS_SESSION_BUS_ADDRESS`, else `unix:path=$XDG_RUNTIME_DIR/bus`
    /// when that socket exists (the per-user bus of systemd systems); nil otherwise. Never starts
    /// a bus (no X11 autolaunch).
    public static func sessionBusAddress(environment: [String: String]) -> String? {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else { return nil }
        var info = stat()
        guard stat(runtime + "/bus", &info) == 0, info.st_mode & S_IFMT == S_IFSOCK else { return nil }
        return "unix:path=" + runtime + "/bus"
    }

    /// Whether notifications can be shown: a session bus and a server that answers within
    /// `timeout` (connecting fails at once when there is no bus).
    public static func availability(
        environment: [String: String] = ProcessInfo.processInfo.environment, timeout: Duration = .milliseconds(500)
    ) -> NotificationAvailability {
        do {
            let notifier = try DesktopNotifier(environment: environment, timeout: timeout)
            defer { notifier.disconnect() }
            return .available(notifier.server)
        } catch {
            switch error {
            case .noSessionBus, .cannotConnect, .disconnected: return .noSessionBus(error.description)
            case .noServer, .callFailed: return .noServer(error.description)
            }
        }
    }

    /// Shows `notification`; returns its id.
    ///
    /// - Parameters:
    ///   - onAction: called with an action's key when the user clicks it (on a thread of its own,
    ///     never the bus thread).
    ///   - onClose: called once when the notification is gone, with why.
    public func notify(
        _ notification: DesktopNotification, onAction: (@Sendable (String) -> Void)? = nil,
        onClose: (@Sendable (NotificationCloseReason) -> Void)? = nil
    ) throws(NotificationError) -> UInt32 {
        var watcher = Watcher()
        if let onAction {
            watcher.onAction = { key in DispatchQueue.global().async { onAction(key) } }
        }
        if let onClose {
            watcher.onClose = { reason in DispatchQueue.global().async { onClose(reason) } }
        }
        return try post(notification, watcher: watcher)
    }

    /// Closes a notification (`CloseNotification`); one that is already gone is not an error.
    public func close(_ id: UInt32) throws(NotificationError) {
        do {
            _ = try bus.callAndWait(
                Self.call("CloseNotification", [.uint32(id)]), method: "CloseNotification", timeout: callTimeout)
        } catch {
            guard case .callFailed = error else { throw error }
        }
    }

    /// Shows `notification` and waits until it is answered: `accept` or `decline` clicked, the
    /// notification dismissed or expired, `timeout` passed (it is then closed), or `cancellation`
    /// cancelled. One question at a time is the caller's rule to keep.
    ///
    /// Blocks the calling thread; call it from a thread of your own (a connection thread), or use
    /// the async overload.
    ///
    /// - Parameters:
    ///   - notification: must hold the actions `accept` and `decline`; with
    ///     ``DesktopNotification/Expiry/serverDefault`` it is given `timeout` as its expiry.
    ///   - shown: called with the notification's id once it is shown (to ``update(_:to:)`` it
    ///     while it waits).
    /// - Throws: ``NotificationError/noServer(reason:)`` when the server cannot show buttons,
    ///   or the error of the `Notify` call.
    public func ask(
        _ notification: DesktopNotification, accept: String, decline: String, timeout: Duration,
        cancellation: NotificationCancellation? = nil, shown: (@Sendable (UInt32) -> Void)? = nil
    ) throws(NotificationError) -> NotificationAnswer {
        guard server.supportsActions else {
            throw .noServer(reason: "\(server.name) cannot show buttons (it lacks the 'actions' capability)")
        }
        let answer = Mutex<NotificationAnswer?>(nil)
        let done = DispatchSemaphore(value: 0)
        let finish: @Sendable (NotificationAnswer) -> Void = { value in
            let first = answer.withLock { answer in
                guard answer == nil else { return false }
                answer = value
                return true
            }
            if first { done.signal() }
        }
        var notificationShown = notification
        if notificationShown.expiry == .serverDefault { notificationShown.expiry = .after(timeout) }
        let watcher = Watcher(
            onAction: { key in
                if key == accept { finish(.accepted) } else if key == decline { finish(.declined) }
            },
            onClose: { reason in finish(reason == .expired ? .expired : .closed) })
        let id = try post(notificationShown, watcher: watcher)
        shown?(id)
        cancellation?.onCancel { finish(.cancelled) }
        if done.wait(
            timeout: .now()
                + .nanoseconds(
                    Int(
                        clamping: timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds
                            / 1_000_000_000))) == .timedOut
        {
            finish(.expired)
        }
        let result = answer.withLock { $0! }
        shared.watchers.withLock { _ = $0.removeValue(forKey: id) }
        // Nothing is left on the screen that could still be clicked.
        if result != .closed { try? close(id) }
        return result
    }

    /// Shows `notification` in place of notification `id` while that one is still shown and
    /// watched (a question being asked, or one shown with ``notify(_:onAction:onClose:)``): its
    /// buttons should stay the same, and what is reported about it still goes where it went.
    /// Returns false, showing nothing, when it is gone already (answered, closed or expired).
    ///
    /// A notification the server closes in the very moment it is replaced may come back as a
    /// new one: the specification leaves no way to replace only what is still shown.
    @discardableResult
    public func update(_ id: UInt32, to notification: DesktopNotification) throws(NotificationError) -> Bool {
        var replacement = notification
        replacement.replacesID = id
        let shared = self.shared
        do {
            _ = try post(replacement, watcher: nil, onlyIf: { shared.watchers.withLock { $0[id] != nil } })
            return true
        } catch {
            if case .callFailed(_, let reason) = error, reason == BusConnection.skipped { return false }
            throw error
        }
    }

    /// ``ask(_:accept:decline:timeout:cancellation:shown:)`` without blocking a thread of the caller's:
    /// it waits on a thread of its own; cancelling the task cancels the question.
    public func ask(
        _ notification: DesktopNotification, accept: String, decline: String, timeout: Duration
    ) async throws(NotificationError) -> NotificationAnswer {
        let cancellation = NotificationCancellation()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<NotificationAnswer, NotificationError>, Never>) in
                let thread = Thread {
                    do {
                        continuation.resume(
                            returning: .success(
                                try self.ask(
                                    notification, accept: accept, decline: decline, timeout: timeout,
                                    cancellation: cancellation)))
                    } catch let error as NotificationError {
                        continuation.resume(returning: .failure(error))
                    } catch {
                        continuation.resume(returning: .failure(.disconnected))
                    }
                }
                thread.name = "share.ask"
                thread.start()
            }
        } onCancel: {
            cancellation.cancel()
        }
        return try result.get()
    }

    /// Whether the connection to the session bus is still up (false once it was lost or ended).
    public var isConnected: Bool { shared.connected.withLock { $0 } }

    /// Ends the connection; questions still waiting end as closed.
    public func disconnect() {
        bus.close()
        Self.lose(shared)
    }

    // MARK: The bus side

    /// Sends `Notify`; `watcher` (when given) watches the new notification from the moment the
    /// reply is handled.
    private func post(
        _ notification: DesktopNotification, watcher: Watcher?, onlyIf: (@Sendable () -> Bool)? = nil
    ) throws(NotificationError) -> UInt32 {
        guard shared.connected.withLock({ $0 }) else { throw .disconnected }
        let body = server.readsMarkup ? Self.markup(notification.bodyParts, links: server.showsLinks) : notification.body
        var hints: [(String, BusVariant)] = [("urgency", .byte(notification.urgency.rawValue))]
        if let category = notification.category { hints.append(("category", .string(category))) }
        if let entry = notification.desktopEntry { hints.append(("desktop-entry", .string(entry))) }
        let message = Self.call(
            "Notify",
            [
                .string(notification.appName), .uint32(notification.replacesID), .string(notification.icon),
                .string(notification.summary), .string(body),
                .strings(notification.actions.flatMap { [$0.key, $0.label] }), .hints(hints),
                .int32(notification.expiry.milliseconds),
            ])
        let shared = self.shared
        // The watcher is registered on the bus thread as the reply is handled, before any signal
        // about the new notification can be dispatched.
        return try bus.callAndWait(message, method: "Notify", timeout: callTimeout, onlyIf: onlyIf) { reply in
            guard let id = reply.arguments().first?.uint32 else {
                return .failure(.callFailed(method: "Notify", reason: "the answer holds no notification id"))
            }
            if let watcher { shared.watchers.withLock { $0[id] = watcher } }
            return .success(id)
        }
    }

    /// A signal from the bus thread: only the server's own count.
    private static func deliver(_ message: BusMessage, to shared: Shared) {
        guard let sender = message.sender, sender == shared.owner.withLock({ $0 }) else { return }
        let arguments = message.arguments()
        guard let id = arguments.first?.uint32 else { return }
        if message.isSignal(service, "ActionInvoked"), let key = arguments.dropFirst().first?.string {
            shared.watchers.withLock { $0[id] }?.onAction?(key)
        } else if message.isSignal(service, "NotificationClosed") {
            let reason = arguments.dropFirst().first?.uint32.flatMap(NotificationCloseReason.init) ?? .undefined
            shared.watchers.withLock { $0.removeValue(forKey: id) }?.onClose?(reason)
        }
    }

    /// The connection is gone: every notification still watched counts as closed.
    private static func lose(_ shared: Shared) {
        shared.connected.withLock { $0 = false }
        let watchers = shared.watchers.withLock { watchers in
            defer { watchers.removeAll() }
            return Array(watchers.values)
        }
        for watcher in watchers { watcher.onClose?(.undefined) }
    }

    private static func call(_ method: String, _ arguments: [BusMessage.Argument] = []) -> BusMessage {
        let message = BusMessage.methodCall(destination: service, path: path, interface: service, method: method)
        message.append(arguments)
        return message
    }

    private static func busCall(_ method: String, _ arguments: [BusMessage.Argument]) -> BusMessage {
        let message = BusMessage.methodCall(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            method: method)
        message.append(arguments)
        return message
    }

    /// The body as markup: text shown as it is, and web addresses as links when `links` (and
    /// when they are plain `http`/`https` addresses; anything else stays text).
    static func markup(_ parts: [DesktopNotification.BodyPart], links: Bool) -> String {
        parts.map { part in
            switch part {
            case .link(let address) where links && isWebAddress(address):
                let escaped = escapeMarkup(address)
                return "<a href=\"\(escaped)\">\(escaped)</a>"
            default:
                return escapeMarkup(part.text)
            }
        }.joined()
    }

    /// Whether `text` is an `http` or `https` address that can be put in a link's `href` as it is:
    /// printable ASCII without spaces, quotes, `<`, `>`, `\`, `^`, `` ` ``, `{`, `|` or `}`.
    public static func isWebAddress(_ text: String) -> Bool {
        let lowered = text.lowercased()
        guard let scheme = ["https://", "http://"].first(where: { lowered.hasPrefix($0) }),
            text.utf8.count > scheme.utf8.count, text.utf8.count <= 2048
        else { return false }
        return text.utf8.allSatisfy { byte in
            (0x21...0x7E).contains(byte) && !"\"'<>\\^`{|}".utf8.contains(byte)
        }
    }

    /// The body as markup that shows `text` as it is.
    static func escapeMarkup(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
