internal import CShareAvahi
internal import Glibc
internal import Synchronization

/// The machinery behind ``ServicePublisher``: one Avahi client and one entry group on a
/// threaded poll, kept published across daemon restarts and name collisions.
///
/// ## Threading
/// `@unchecked Sendable`: the stored `let`s are immutable or thread-safe (`closed` is
/// atomic, the continuation is Sendable), and every `var` is touched only with the poll's
/// lock held: either inside an Avahi callback (which runs with the lock held) or inside
/// `poll.withLock`.
///
/// ## Lifetime
/// `init` retains `self` once (`Unmanaged.passRetained`) for the C callbacks' `userdata`;
/// ``close()``, which is idempotent, stops the poll thread and balances that retain.
/// `deinit` asserts that `close()` ran.
final class PublisherCore: @unchecked Sendable {
    /// How long to wait before trying the D-Bus system bus again when it is unreachable.
    static let busRetryDelay: Duration = .seconds(2)
    /// How many alternative names to try in a row before giving up.
    static let maxRenames = 50

    private let poll: ThreadedPoll
    private let type: String
    private let port: UInt16
    private let txt: [[UInt8]]
    private let continuation: AsyncStream<PublisherEvent>.Continuation
    private let closed = Atomic<Bool>(false)

    // Guarded by the poll lock.
    /// The name currently published or being registered (changes on collisions).
    private var name: String
    /// The current connection; replaced after a failure.
    private var client: AvahiClientHandle?
    /// The service's records; released before `client`.
    private var group: EntryGroupHandle?
    /// Armed while waiting to reconnect.
    private var reconnectTimer: PollTimeout?
    /// The reason last reported with `.daemonUnavailable`, nil while the daemon is there.
    private var outage: DiscoveryError?
    /// Set once Avahi refused the service for good or `close()` ran: nothing more is tried.
    private var stopped = false

    /// Creates the poll and connects; events start flowing on `continuation` at once.
    init(
        name: String, type: String, port: UInt16, txt: [[UInt8]],
        continuation: AsyncStream<PublisherEvent>.Continuation
    ) throws(DiscoveryError) {
        self.poll = try ThreadedPoll()
        self.name = name
        self.type = type
        self.port = port
        self.txt = txt
        self.continuation = continuation
        _ = Unmanaged.passRetained(self)
        do {
            poll.withLock { connect() }
            try poll.start()
        } catch {
            close()
            throw error
        }
    }

    deinit {
        assert(closed.load(ordering: .acquiring), "PublisherCore released without close()")
    }

    /// The `userdata` handed to Avahi: `self`, kept alive by the retain taken in `init`.
    private var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// The name currently published or being registered.
    var currentName: String {
        guard !closed.load(ordering: .acquiring) else { return name }
        return poll.withLock { name }
    }

    /// Withdraws the service, stops the poll thread and finishes the event stream.
    /// Idempotent. Must not be called from an Avahi callback.
    func close() {
        guard closed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return
        }
        poll.withLock {
            stopped = true
            reconnectTimer = nil
            group = nil  // withdraws the records: the daemon sends goodbyes
            client = nil
        }
        poll.stop()
        continuation.finish()
        Unmanaged.passUnretained(self).release()
    }

    // MARK: - Called with the poll lock held

    /// Opens a new client. With `AVAHI_CLIENT_NO_FAIL` this fails only when D-Bus itself is
    /// unreachable; a missing daemon shows up as the `CONNECTING` state instead.
    private func connect() {
        reconnectTimer = nil
        switch AvahiClientHandle.connect(poll: poll, callback: publisherClientCallback, userdata: userdata) {
        case .connected(let handle):
            client = handle
        case .failed(let code):
            reportUnavailable(.systemBusUnavailable(address: Self.systemBusAddress, code: code))
            reconnectTimer = PollTimeout(
                poll: poll, delay: Self.busRetryDelay, callback: publisherReconnectCallback, userdata: userdata)
        }
    }

    /// The client's state changed. `pointer` is the client, which may not be stored in
    /// `client` yet (the first call comes from inside `avahi_client_new`).
    fileprivate func clientStateChanged(_ pointer: OpaquePointer, _ state: AvahiClientState) {
        guard !stopped else { return }
        switch state {
        case AVAHI_CLIENT_S_RUNNING:
            reportAvailable()
            register(client: pointer)
        case AVAHI_CLIENT_S_COLLISION, AVAHI_CLIENT_S_REGISTERING:
            // The daemon's host name is changing; our records come back once it runs again.
            group?.reset()
        case AVAHI_CLIENT_CONNECTING:
            reportUnavailable(.daemonNotRunning)
        case AVAHI_CLIENT_FAILURE:
            // The daemon went away or D-Bus dropped us: this client is dead. Reconnect from a
            // timer, not from inside the client's own callback.
            group = nil
            reportUnavailable(.daemonLost)
            reconnectTimer = PollTimeout(
                poll: poll, delay: .zero, callback: publisherReconnectCallback, userdata: userdata)
        default:
            break
        }
    }

    /// The reconnect timer fired: drop the dead client and open a new one.
    fileprivate func reconnectTimerFired() {
        guard !stopped else { return }
        group = nil
        client = nil
        connect()
    }

    /// The entry group's state changed.
    fileprivate func groupStateChanged(_ pointer: OpaquePointer, _ state: AvahiEntryGroupState) {
        guard !stopped else { return }
        switch state {
        case AVAHI_ENTRY_GROUP_ESTABLISHED:
            continuation.yield(.published(name: name))
        case AVAHI_ENTRY_GROUP_COLLISION:
            // Another host answered our probes for the name: take the next one.
            guard let client = avahi.avahi_entry_group_get_client(pointer) else { return }
            rename()
            group?.reset()
            register(client: client)
        case AVAHI_ENTRY_GROUP_FAILURE:
            // The daemon withdrew the records for a reason of its own: not discoverable for
            // now; start over with a fresh connection after a pause (the timer frees the
            // group, not this callback of the group's own).
            let code =
                avahi.avahi_entry_group_get_client(pointer).map { avahi.avahi_client_errno($0) }
                ?? AvahiErrorCode.failure.rawValue
            reportUnavailable(.avahi(operation: "announce the service", code: AvahiErrorCode(rawValue: code)))
            reconnectTimer = PollTimeout(
                poll: poll, delay: Self.busRetryDelay, callback: publisherReconnectCallback, userdata: userdata)
        default:
            break
        }
    }

    /// Adds the service to the (new or reset) group and commits it, renaming on a local collision.
    private func register(client pointer: OpaquePointer) {
        if group == nil {
            do {
                group = try EntryGroupHandle(client: pointer, callback: publisherGroupCallback, userdata: userdata)
            } catch {
                fail(error)
                return
            }
        }
        guard let group, !group.hasService else { return }
        for _ in 0..<Self.maxRenames {
            switch group.addServiceAndCommit(name: name, type: type, port: port, txt: txt) {
            case nil:
                return
            case .collision?:
                // Another program on this machine holds the name.
                group.reset()
                rename()
            case let code?:
                fail(.avahi(operation: "publish the service", code: code))
                return
            }
        }
        fail(.avahi(operation: "find a free name after \(Self.maxRenames) collisions", code: .collision))
    }

    /// Moves to Avahi's next alternative name ("desk" → "desk #2" → "desk #3") and reports it.
    private func rename() {
        guard let alternative = avahi.avahi_alternative_service_name(name) else { return }
        let newName = String(cString: alternative)
        avahi.avahi_free(alternative)
        continuation.yield(.renamed(from: name, to: newName))
        name = newName
    }

    private func reportUnavailable(_ reason: DiscoveryError) {
        guard outage == nil else { return }
        outage = reason
        continuation.yield(.daemonUnavailable(reason))
    }

    private func reportAvailable() {
        guard outage != nil else { return }
        outage = nil
        continuation.yield(.daemonReturned)
    }

    private func fail(_ error: DiscoveryError) {
        stopped = true
        group = nil
        continuation.yield(.failed(error))
    }

    /// The bus address libdbus uses, for messages.
    static var systemBusAddress: String {
        if let address = getenv("DBUS_SYSTEM_BUS_ADDRESS"), address.pointee != 0 { return String(cString: address) }
        return "unix:path=/var/run/dbus/system_bus_socket"
    }
}

// MARK: - C callbacks (run on the poll thread with the lock held)

private func publisherCore(_ userdata: UnsafeMutableRawPointer?) -> PublisherCore {
    guard let userdata else { preconditionFailure("Avahi callback without userdata") }
    return Unmanaged<PublisherCore>.fromOpaque(userdata).takeUnretainedValue()
}

private func publisherClientCallback(
    _ client: OpaquePointer?, _ state: AvahiClientState, _ userdata: UnsafeMutableRawPointer?
) {
    guard let client else { preconditionFailure("Avahi client callback without a client") }
    publisherCore(userdata).clientStateChanged(client, state)
}

private func publisherGroupCallback(
    _ group: OpaquePointer?, _ state: AvahiEntryGroupState, _ userdata: UnsafeMutableRawPointer?
) {
    guard let group else { preconditionFailure("Avahi entry group callback without a group") }
    publisherCore(userdata).groupStateChanged(group, state)
}

private func publisherReconnectCallback(_ timeout: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?) {
    publisherCore(userdata).reconnectTimerFired()
}
