import ShareDiscovery
public import ShareTLS

/// Makes a receiver visible nearby: publishes `_share._tcp` on its port through avahi-daemon,
/// with the TXT record of ``Advertisement``, and keeps it published across collisions and daemon
/// restarts (``ServicePublisher`` does the work; this adds what share advertises).
public final class ReceiverAdvertiser: Sendable {
    /// What happens to the publication.
    public enum Event: Sendable, Hashable {
        /// The service is announced on the network under `name`.
        case published(name: String)
        /// Another host (or another program here) already uses the name: the service is being
        /// announced again under `to`. A ``published(name:)`` follows once it is established.
        case renamed(from: String, to: String)
        /// The service is not discoverable for now: avahi-daemon or D-Bus is not reachable (or
        /// the daemon withdrew the records). The error says why and how to fix it. The publisher
        /// keeps trying and reports ``daemonReturned`` when the daemon is back. Reported once per
        /// outage, with the first reason seen.
        case daemonUnavailable(PeerDiscoveryError)
        /// avahi-daemon is reachable again; the service is being announced again.
        case daemonReturned
        /// Avahi refused the service itself when it was added (not a daemon outage), or no free
        /// name was found; the publisher stops trying.
        case failed(PeerDiscoveryError)
    }

    private let publisher: ServicePublisher
    /// ``ServicePublisher``'s events, in share's terms.
    public let events: AsyncStream<Event>

    /// Publishes `name` on `port` for the receiver with `fingerprint`.
    /// - Throws: ``PeerDiscoveryError`` for a name or record Avahi cannot take. An absent daemon is
    ///   not an error here: it is reported through ``events`` and retried.
    public init(name: String, port: UInt16, fingerprint: Fingerprint) throws(PeerDiscoveryError) {
        let publisher: ServicePublisher
        do {
            publisher = try ServicePublisher.publish(
                name: name, type: ServiceType.share, port: port, txt: Advertisement.txt(for: fingerprint))
        } catch {
            throw PeerDiscoveryError(error)
        }
        self.publisher = publisher
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self)
        events = stream
        Task {
            for await event in publisher.events {
                switch event {
                case .published(let name): continuation.yield(.published(name: name))
                case .renamed(let from, let to): continuation.yield(.renamed(from: from, to: to))
                case .daemonUnavailable(let error): continuation.yield(.daemonUnavailable(PeerDiscoveryError(error)))
                case .daemonReturned: continuation.yield(.daemonReturned)
                case .failed(let error): continuation.yield(.failed(PeerDiscoveryError(error)))
                }
            }
            continuation.finish()
        }
    }

    /// The name currently published (it changes after a collision).
    public var name: String { publisher.name }

    /// Withdraws the service.
    public func close() { publisher.close() }
}
