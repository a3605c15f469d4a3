internal import CShareDBus
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A private connection to one message bus (libdbus `DBusConnection`), owned, with a thread of
/// its own: every libdbus call on the connection happens on that thread, which polls the bus
/// socket and a wake-up pipe; other threads hand it work (``perform(_:)``) and get answers through
/// completion handlers. Signals that match the rules given at creation go to `signals`.
final class BusConnection: @unchecked Sendable {
    // @unchecked: `connection` is touched only on the connection's thread (and in init/deinit,
    // when no other thread can see it); work for that thread goes through the `work` Mutex.
    private let connection: OpaquePointer
    private let socket: Int32
    private let wake: (read: Int32, write: Int32)
    private let work = Mutex<[@Sendable (BusConnection) -> Void]>([])
    private let state = Mutex((stopping: false, thread: pthread_t?.none))
    private let ended = DispatchSemaphore(value: 0)
    private let signals: @Sendable (BusMessage) -> Void
    private let lost: @Sendable () -> Void

    /// Connects to the bus at `address`, says hello (`dbus_bus_register`), subscribes to
    /// `matchRules`, and starts the connection's thread.
    ///
    /// - Parameters:
    ///   - signals: called on the connection's thread with each signal that matched.
    ///   - lost: called on the connection's thread once, when the connection is lost.
    init(
        address: String, matchRules: [String], signals: @escaping @Sendable (BusMessage) -> Void,
        lost: @escaping @Sendable () -> Void
    ) throws(NotificationError) {
        _ = libdbus.dbus_threads_init_default()
        var error = DBusError()
        libdbus.dbus_error_init(&error)
        defer { libdbus.dbus_error_free(&error) }
        guard let connection = libdbus.dbus_connection_open_private(address, &error) else {
            throw .cannotConnect(address: address, reason: Self.text(error))
        }
        libdbus.dbus_connection_set_exit_on_disconnect(connection, 0)
        guard libdbus.dbus_bus_register(connection, &error) != 0 else {
            let reason = Self.text(error)
            libdbus.dbus_connection_close(connection)
            libdbus.dbus_connection_unref(connection)
            throw .cannotConnect(address: address, reason: reason)
        }
        for rule in matchRules {
            libdbus.dbus_bus_add_match(connection, rule, &error)
            if libdbus.dbus_error_is_set(&error) != 0 {
                let reason = Self.text(error)
                libdbus.dbus_connection_close(connection)
                libdbus.dbus_connection_unref(connection)
                throw .cannotConnect(address: address, reason: "cannot subscribe to notification signals: \(reason)")
            }
        }
        var fd: Int32 = -1
        guard libdbus.dbus_connection_get_unix_fd(connection, &fd) != 0 else {
            libdbus.dbus_connection_close(connection)
            libdbus.dbus_connection_unref(connection)
            throw .cannotConnect(address: address, reason: "not a socket connection")
        }
        self.connection = connection
        self.socket = fd
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            libdbus.dbus_connection_close(connection)
            libdbus.dbus_connection_unref(connection)
            throw .cannotConnect(address: address, reason: "pipe: \(String(cString: strerror(errno)))")
        }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        self.wake = (ends[0], ends[1])
        self.signals = signals
        self.lost = lost
        _ = libdbus.dbus_connection_add_filter(connection, busFilter, Unmanaged.passUnretained(self).toOpaque(), nil)
        let thread = Thread { [self] in loop() }
        thread.name = "share.dbus"
        thread.start()
    }

    deinit {
        close()
        libdbus.dbus_connection_remove_filter(connection, busFilter, Unmanaged.passUnretained(self).toOpaque())
        libdbus.dbus_connection_close(connection)
        libdbus.dbus_connection_unref(connection)
        Glibc.close(wake.read)
        Glibc.close(wake.write)
    }

    /// Runs `body` on the connection's thread; false (and `body` never runs) once it stopped.
    @discardableResult
    func perform(_ body: @escaping @Sendable (BusConnection) -> Void) -> Bool {
        let accepted = state.withLock { state in
            guard !state.stopping else { return false }
            work.withLock { $0.append(body) }
            return true
        }
        if accepted { wakeUp() }
        return accepted
    }

    /// Sends `message` and calls `completion` (on the connection's thread) with the reply, an
    /// error, or `callFailed` after `timeout`. When `onlyIf` (asked on the connection's thread, in
    /// order with the other work) says no, nothing is sent and the call fails with ``skipped``.
    func call(
        _ message: BusMessage, method: String, timeout: Duration, onlyIf: (@Sendable () -> Bool)? = nil,
        completion: @escaping @Sendable (Result<BusMessage, NotificationError>) -> Void
    ) {
        let milliseconds = Int32(
            clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let accepted = perform { bus in
            if let onlyIf, !onlyIf() {
                completion(.failure(.callFailed(method: method, reason: Self.skipped)))
                return
            }
            var pending: OpaquePointer?
            guard
                libdbus.dbus_connection_send_with_reply(bus.connection, message.pointer, &pending, max(milliseconds, 1))
                    != 0,
                let pending
            else {
                completion(.failure(.disconnected))
                return
            }
            let box = Unmanaged.passRetained(ReplyBox(method: method, completion: completion)).toOpaque()
            if libdbus.dbus_pending_call_set_notify(pending, replyArrived, box, nil) == 0 {
                Unmanaged<ReplyBox>.fromOpaque(box).release()
                libdbus.dbus_pending_call_unref(pending)
                completion(.failure(.disconnected))
                return
            }
            libdbus.dbus_connection_flush(bus.connection)
        }
        if !accepted { completion(.failure(.disconnected)) }
    }

    /// Why a call with an `onlyIf` that said no failed.
    static let skipped = "not sent: its condition no longer held"

    /// Calls and waits for the reply (on any thread but the connection's own); `then` turns the
    /// reply into the result on the connection's thread, before any later message is dispatched.
    func callAndWait<T: Sendable>(
        _ message: BusMessage, method: String, timeout: Duration, onlyIf: (@Sendable () -> Bool)? = nil,
        then: @escaping @Sendable (BusMessage) -> Result<T, NotificationError>
    ) throws(NotificationError) -> T {
        let result = Mutex<Result<T, NotificationError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        call(message, method: method, timeout: timeout, onlyIf: onlyIf) { reply in
            result.withLock { $0 = reply.flatMap(then) }
            done.signal()
        }
        // The connection's own timeout answers first; this one covers a connection that stopped.
        let limit =
            Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000) + 2000
        if done.wait(timeout: .now() + .milliseconds(limit)) == .timedOut {
            throw .callFailed(method: method, reason: "no answer")
        }
        return try result.withLock { $0! }.get()
    }

    /// Calls and waits for the reply (on any thread but the connection's own).
    func callAndWait(_ message: BusMessage, method: String, timeout: Duration) throws(NotificationError) -> BusMessage {
        try callAndWait(message, method: method, timeout: timeout) { .success($0) }
    }

    /// Stops the thread (after the work already handed to it). Safe to call more than once and
    /// from any thread, including the connection's own.
    func close() {
        let (wasStopping, thread) = state.withLock { state in
            defer { state.stopping = true }
            return (state.stopping, state.thread)
        }
        guard !wasStopping else { return }
        wakeUp()
        if let thread, pthread_equal(thread, pthread_self()) != 0 { return }
        ended.wait()
    }

    private func wakeUp() {
        var one: UInt8 = 1
        _ = write(wake.write, &one, 1)
    }

    /// The connection's thread: run the work handed over, dispatch what arrived, poll; until closed.
    private func loop() {
        state.withLock { $0.thread = pthread_self() }
        defer { ended.signal() }
        while true {
            let stopping = state.withLock { $0.stopping }
            runWork()
            if stopping { return }
            while libdbus.dbus_connection_dispatch(connection) == DBUS_DISPATCH_DATA_REMAINS {}
            if libdbus.dbus_connection_get_is_connected(connection) == 0 {
                state.withLock { $0.stopping = true }
                lost()
                runWork()
                return
            }
            var descriptors = [
                pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
            ]
            if libdbus.dbus_connection_has_messages_to_send(connection) != 0 { descriptors[0].events |= Int16(POLLOUT) }
            if poll(&descriptors, 2, -1) < 0 && errno != EINTR { return }
            if descriptors[1].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while read(wake.read, &drain, drain.count) > 0 {}
            }
            if descriptors[0].revents != 0 { _ = libdbus.dbus_connection_read_write(connection, 0) }
        }
    }

    /// Runs (and forgets) the work handed over so far.
    private func runWork() {
        for body in work.withLock({ work in
            defer { work.removeAll() }
            return work
        }) { body(self) }
    }

    /// A signal that matched one of the rules.
    fileprivate func received(_ message: BusMessage) {
        signals(message)
    }

    private static func text(_ error: DBusError) -> String {
        error.message.map { String(cString: $0) } ?? "unknown error"
    }
}

/// A completion waiting for a method reply.
private final class ReplyBox {
    let method: String
    let completion: @Sendable (Result<BusMessage, NotificationError>) -> Void

    init(method: String, completion: @escaping @Sendable (Result<BusMessage, NotificationError>) -> Void) {
        self.method = method
        self.completion = completion
    }
}

/// libdbus calls this (on the connection's thread) when a reply, an error or the timeout came.
private func replyArrived(_ pending: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    guard let pending, let context else { return }
    let box = Unmanaged<ReplyBox>.fromOpaque(context).takeRetainedValue()
    let reply = libdbus.dbus_pending_call_steal_reply(pending)
    libdbus.dbus_pending_call_unref(pending)
    guard let reply else {
        box.completion(.failure(.callFailed(method: box.method, reason: "no reply")))
        return
    }
    let message = BusMessage(owning: reply)
    if let error = message.error {
        let reason = error.message.isEmpty ? error.name : "\(error.message) (\(error.name))"
        box.completion(.failure(.callFailed(method: box.method, reason: reason)))
    } else {
        box.completion(.success(message))
    }
}

/// libdbus calls this (on the connection's thread) for every incoming message before replies
/// are matched: signals go to the connection's handler.
private func busFilter(
    _ connection: OpaquePointer?, _ message: OpaquePointer?, _ context: UnsafeMutableRawPointer?
) -> DBusHandlerResult {
    guard let message, let context, libdbus.dbus_message_get_type(message) == 4 /* DBUS_MESSAGE_TYPE_SIGNAL */ else {
        return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
    }
    let bus = Unmanaged<BusConnection>.fromOpaque(context).takeUnretainedValue()
    guard let reference = libdbus.dbus_message_ref(message) else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
    bus.received(BusMessage(owning: reference))
    return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
}
