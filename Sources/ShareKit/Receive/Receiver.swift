import ShareSystem
import Foundation
public import ShareTLS
import ShareTransport
import Synchronization

/// Accepts documents over TLS: listens, runs each connection on its own thread, and reports what
/// happened through ``ReceiverEvents``.
public final class Receiver: Sendable {
    /// The configuration it runs with.
    public let configuration: ReceiverConfiguration
    /// The port it listens on (the one picked, when asked for port 0).
    public var port: UInt16 { listener.port }
    private let identity: Identity
    private let context: TLSContext
    private let listener: TCPListener
    private let events: ReceiverEvents
    private let active = Mutex<[Int: ConnectionControl]>([:])
    private let admission: Admission
    private let publishedName: Mutex<String>
    private let limiter: PromptLimiter
    private let finishedAll = DispatchGroup()

    /// Binds the port, prepares TLS, and creates the receive folder and the inbox; call ``run()``
    /// to load the type registry and start accepting.
    /// - Throws: ``TransportError`` when the port cannot be bound; ``ReceiveError`` for an unusable
    ///   receive folder or inbox; ``TLSError`` for an unusable identity.
    public init(configuration: ReceiverConfiguration, identity: Identity, events: ReceiverEvents) throws {
        ProcessSignals.ignoreBrokenPipes()
        Self.tuneAllocator
        DescriptorLimit.raise()
        try StagingArea.createDirectories(configuration.destination)
        do {
            try StagingArea.createDirectories(configuration.inbox, mode: 0o700)
        } catch {
            throw ReceiveError.inboxUnusable(path: configuration.inbox, reason: error.reason)
        }
        // Commits a killed receiver left after their decision point are finished first.
        configuration.partials.finishInterruptedCommits()
        StagingArea.removeAbandoned(in: configuration.inbox)
        configuration.partials.expire()
        // Staging folders of older versions, and scratch folders of imports across filesystems.
        StagingArea.removeAbandoned(in: configuration.destination)
        var configuration = configuration
        if configuration.receiveFolder == nil { configuration.receiveFolder = try ReceiveFolder(path: configuration.destination) }
        self.configuration = configuration
        self.identity = identity
        self.events = events
        self.context = try TLSContext.server(identity: identity, anchors: configuration.trustAnchors)
        self.limiter = PromptLimiter(
            limit: configuration.promptsPerMinute, verifiedLimit: configuration.verifiedPromptsPerMinute, window: .seconds(60))
        self.publishedName = Mutex(configuration.deviceName)
        self.admission = Admission(
            limits: AdmissionTable.Limits(
                pending: configuration.maxPendingConnections, pendingPerSource: configuration.maxConnectionsPerAddress,
                transfers: configuration.maxConcurrentTransfers, reservedTransfers: configuration.reservedTransfers))
        self.listener = try TCPListener(port: configuration.port)
    }

    /// Accepts connections until ``stop()``; blocks the calling thread.
    public func run() {
        // The shared-mime-info database is read now rather than at the first transfer, but after
        // the caller had the chance to publish the port (discovery does not wait for it).
        _ = configuration.registry.current()
        while true {
            let socket: TCPSocket?
            do {
                socket = try listener.accept()
            } catch {
                events.finished(.refused(peerAddress: "", reason: error.description))
                continue
            }
            guard let socket else { break }
            let (id, admitted) = admission.admit(address: socket.remoteDescription)
            guard case .admitted(let dropping) = admitted else {
                socket.close()
                let limits = admission.limits
                events.finished(
                    .refused(
                        peerAddress: socket.remoteDescription,
                        reason: "all \(limits.pending) places for connections are held by verified senders"))
                continue
            }
            let control = ConnectionControl(socket: socket)
            let dropped = active.withLock { active in
                active[id] = control
                return dropping.compactMap { active[$0] }
            }
            for victim in dropped { victim.drop(Self.dropReason) }
            finishedAll.enter()
            BlockingWork.start("share.receive") { [self] in
                defer {
                    active.withLock { _ = $0.removeValue(forKey: id) }
                    admission.remove(id)
                    finishedAll.leave()
                }
                var transfer = IncomingTransfer(
                    socket: socket, context: context, configuration: configuration, events: events, limiter: limiter,
                    localFingerprint: identity.fingerprint, control: control, currentName: { [self] in name },
                    admission: admission, admissionID: id,
                    supersede: { [self] key in supersede(key, except: id) })
                transfer.run()
            }
        }
    }

    /// Keeps glibc's malloc from holding on to freed file data, once per process (a setting the user
    /// made through glibc's own variables is left alone; docs/PERFORMANCE.md §11):
    /// - 1 MiB chunks and frame buffers get their own mmap, returned at once when freed. glibc would
    ///   otherwise raise its mmap threshold past them after the first few and carve them from its
    ///   heaps, where, freed between long-lived small blocks, they stayed resident: with 16 senders
    ///   the receiver's memory grew by ~10-30 MiB with every round.
    /// - At most one arena per core (at least 2): each of the many connection and disk threads could
    ///   otherwise get an arena of its own, each keeping what its thread freed.
    private static let tuneAllocator: Void = {
        let environment = ProcessInfo.processInfo.environment
        if environment["MALLOC_MMAP_THRESHOLD_"] == nil {
            Allocator.mapAllocations(ofAtLeast: allocatorMmapThreshold)
        }
        if environment["MALLOC_ARENA_MAX"] == nil {
            Allocator.limitArenas(max(2, ProcessInfo.processInfo.activeProcessorCount))
        }
    }()

    /// Allocations of this size and more get their own mmap (half a DATA chunk).
    static let allocatorMmapThreshold = 512 << 10

    /// Why a connection that had made no offer yet was dropped (docs/SECURITY.md, "Admission").
    static let dropReason =
        "the receiver has too many connections waiting to make an offer, and dropped this one to make room; try again"

    /// Ends the other connection continuing the partial transfer `key` (the sender reconnected while
    /// this side still held its old connection).
    private func supersede(_ key: String, except id: Int) {
        func others() -> [ConnectionControl] {
            active.withLock { active in active.filter { $0.key != id && $0.value.resumeKey == key }.map(\.value) }
        }
        // An old connection whose sender closed it is still writing what it had received (its socket
        // buffer, the disk queue): it ends by itself within moments and keeps every byte, so it gets
        // a short grace. One whose link went silent may be blocked reading until the stall limit:
        // after the grace its socket is shut down, and the new connection gets the area.
        let deadline = ContinuousClock.now + Self.supersedeGrace
        while !others().isEmpty, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.02) }
        for control in others() { control.drop("the sender reconnected to continue this transfer on a new connection", now: true) }
    }

    /// How long an old connection of a reconnected sender may take to end by itself.
    static let supersedeGrace: Duration = .seconds(2)

    /// The name senders are told (HELLO): the one this receiver is published under now.
    public var name: String { publishedName.withLock { $0 } }

    /// Records the name DNS-SD published this receiver under (after a collision, `desk #2`), so
    /// senders are told the same name they see.
    public func published(as name: String) {
        publishedName.withLock { $0 = name }
    }

    /// ``run()`` on a dedicated thread.
    public func runAsync() async {
        await BlockingWork.run("share.accept") { () throws(Never) in self.run() }
    }

    /// Stops accepting and cancels transfers in progress (their senders are told, their staging
    /// folders are removed), questions being asked, and the importers they run (their documents stay
    /// in the inbox).
    public func stop() {
        listener.stop()
        for control in active.withLock({ Array($0.values) }) { control.stop() }
    }

    /// Stops accepting new connections; the transfers in progress go on (``waitForTransfers()``
    /// waits for them), so a receiver can be replaced by one with other settings.
    public func stopAccepting() {
        listener.stop()
    }

    /// Waits until every transfer thread has ended (after ``stop()``).
    public func waitForTransfers() {
        finishedAll.wait()
    }
}

/// Controls one incoming connection from other threads: stopping the receiver ends the question
/// it asks, the imports it runs and its reads (its thread then tells the sender, and closes).
final class ConnectionControl: Sendable {
    let socket: TCPSocket
    let imports = ImportCancellation()
    /// Signalled when the receiver stops: the connection's thread waits on it with the socket.
    let wake = WakeSignal()
    private let state = Mutex<(stopping: Bool, established: Bool, ticket: PromptTicket?, dropped: String?, resumeKey: String?)>(
        (false, false, nil, nil, nil))

    init(socket: TCPSocket) { self.socket = socket }

    /// Stops the connection: once TLS is up, its thread tells the sender the receiver stopped (so
    /// the session is left intact to send that); before, the socket is simply shut.
    func stop() {
        let (ticket, established) = state.withLock { state in
            state.stopping = true
            return (state.ticket, state.established)
        }
        ticket?.withdraw("the receiver is stopping")
        imports.cancel()
        wake.signal()
        if !established { socket.shutdown() }
    }

    /// Drops a connection that made no offer yet, to make room for others: once TLS is up its thread
    /// tells the sender `reason` (ERROR `busy`); before, the socket is simply shut. With `now`, the
    /// socket is shut in any case (a connection whose sender already left).
    func drop(_ reason: String, now: Bool = false) {
        let established = state.withLock { state in
            state.stopping = true
            state.dropped = reason
            return state.established
        }
        wake.signal()
        if !established || now { socket.shutdown() }
    }

    /// The partial transfer this connection continues (its area name), once its offer was accepted.
    var resumeKey: String? { state.withLock { $0.resumeKey } }

    /// Records the partial transfer this connection continues.
    func continues(_ key: String) {
        state.withLock { $0.resumeKey = key }
    }

    /// Why the connection was dropped, if it was (``drop(_:)``).
    var droppedReason: String? { state.withLock { $0.dropped } }

    /// The TLS session is up: from now on stopping goes through ``wake``. Returns false if the
    /// receiver is already stopping.
    func established() -> Bool {
        state.withLock { state in
            state.established = true
            return !state.stopping
        }
    }

    /// Whether ``stop()`` was called.
    var isStopping: Bool { state.withLock { $0.stopping } }

    /// The question being asked for this connection, if any.
    var currentTicket: PromptTicket? { state.withLock { $0.ticket } }

    /// Records the question being asked (nil when it was answered); withdraws it at once if the
    /// receiver is already stopping.
    func asking(_ ticket: PromptTicket?) {
        let stopping = state.withLock { state in
            state.ticket = ticket
            return state.stopping
        }
        if stopping { ticket?.withdraw("the receiver is stopping") }
    }
}
