import Foundation
public import ShareTLS
public import ShareTransport
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
    private let finishedAll = DispatchGroup()

    /// Binds the port and prepares TLS; call ``run()`` to start accepting.
    /// - Throws: ``TransportError`` when the port cannot be bound; ``ReceiveError`` for an unusable
    ///   receive folder; ``TLSError`` for an unusable identity.
    public init(configuration: ReceiverConfiguration, identity: Identity, events: ReceiverEvents) throws {
        ProcessSignals.ignoreBrokenPipes()
        try StagingArea.createDirectories(configuration.destination)
        StagingArea.removeAbandoned(in: configuration.destination)
        self.configuration = configuration
        self.identity = identity
        self.events = events
        self.context = try TLSContext.server(identity: identity, anchors: configuration.trustAnchors)
        self.listener = try TCPListener(port: configuration.port)
    }

    /// Accepts connections until ``stop()``; blocks the calling thread.
    public func run() {
        while true {
            let socket: TCPSocket?
            do {
                socket = try listener.accept()
            } catch {
                events.finished(.refused(peerAddress: "", reason: error.description))
                continue
            }
            guard let socket else { break }
            let count = active.withLock { $0.count }
            if count >= configuration.maxConcurrentTransfers {
                socket.close()
                events.finished(.refused(peerAddress: socket.remoteDescription, reason: "too many transfers at once"))
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
                    socket: socket, context: context, configuration: configuration, events: events)
                transfer.run()
            }
        }
    }

    /// ``run()`` on a dedicated thread.
    public func runAsync() async {
        await BlockingWork.run("share.accept") { () throws(Never) in self.run() }
    }

    /// Stops accepting and cancels transfers in progress (their staging folders are removed).
    public func stop() {
        listener.stop()
        for canceller in active.withLock({ Array($0.values) }) { canceller.cancel() }
    }

    /// Waits until every transfer thread has ended (after ``stop()``).
    public func waitForTransfers() {
        finishedAll.wait()
    }
}

/// Cancels one connection from another thread.
final class SecureConnectionCanceller: Sendable {
    let socket: TCPSocket
    init(socket: TCPSocket) { self.socket = socket }
    func cancel() { socket.shutdown() }
}
