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
    private let active = Mutex<[ObjectIdentifier: SecureConnectionCanceller]>([:])
    private let limiter: PromptLimiter
    private let finishedAll = DispatchGroup()

    /// Binds the port, prepares TLS, and creates the receive folder and the inbox; call ``run()``
    /// to load the type registry and start accepting.
    /// - Throws: ``TransportError`` when the port cannot be bound; ``ReceiveError`` for an unusable
    ///   receive folder or inbox; ``TLSError`` for an unusable identity.
    public init(configuration: ReceiverConfiguration, identity: Identity, events: ReceiverEvents) throws {
        ProcessSignals.ignoreBrokenPipes()
        try StagingArea.createDirectories(configuration.destination)
        do {
            try StagingArea.createDirectories(configuration.inbox, mode: 0o700)
        } catch {
            throw ReceiveError.inboxUnusable(path: configuration.inbox, reason: error.reason)
        }
        StagingArea.removeAbandoned(in: configuration.inbox)
        // Staging folders of older versions, and scratch folders of imports across filesystems.
        StagingArea.removeAbandoned(in: configuration.destination)
        self.configuration = configuration
        self.identity = identity
        self.events = events
        self.context = try TLSContext.server(identity: identity, anchors: configuration.trustAnchors)
        self.limiter = PromptLimiter(limit: configuration.promptsPerMinute, window: .seconds(60))
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
            let host = ReceiveGate.host(of: socket.remoteDescription)
            let (total, fromHost) = active.withLock { active in
                (active.count, active.values.filter { ReceiveGate.host(of: $0.socket.remoteDescription) == host }.count)
            }
            if total >= configuration.maxConcurrentTransfers || fromHost >= configuration.maxConnectionsPerAddress {
                socket.close()
                let reason =
                    total >= configuration.maxConcurrentTransfers
                    ? "too many connections at once (\(total))" : "too many connections from \(host) at once (\(fromHost))"
                events.finished(.refused(peerAddress: socket.remoteDescription, reason: reason))
                continue
            }
            let canceller = SecureConnectionCanceller(socket: socket)
            let key = ObjectIdentifier(canceller)
            active.withLock { $0[key] = canceller }
            finishedAll.enter()
            BlockingWork.start("share.receive") { [self] in
                defer {
                    active.withLock { _ = $0.removeValue(forKey: key) }
                    finishedAll.leave()
                }
                var transfer = IncomingTransfer(
                    socket: socket, context: context, configuration: configuration, events: events, limiter: limiter,
                    localFingerprint: identity.fingerprint, cancellation: canceller.imports)
                transfer.run()
            }
        }
    }

    /// ``run()`` on a dedicated thread.
    public func runAsync() async {
        await BlockingWork.run("share.accept") { () throws(Never) in self.run() }
    }

    /// Stops accepting and cancels transfers in progress (their staging folders are removed) and
    /// the importers they run (their documents stay in the inbox).
    public func stop() {
        listener.stop()
        for canceller in active.withLock({ Array($0.values) }) { canceller.cancel() }
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

/// Cancels one connection, and the imports it runs, from another thread.
final class SecureConnectionCanceller: Sendable {
    let socket: TCPSocket
    let imports = ImportCancellation()
    init(socket: TCPSocket) { self.socket = socket }
    func cancel() {
        imports.cancel()
        socket.shutdown()
    }
}
