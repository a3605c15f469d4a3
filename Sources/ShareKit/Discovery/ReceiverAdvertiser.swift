public import ShareDiscovery
public import ShareTLS

/// Makes a receiver visible nearby: publishes `_share._tcp` on its port through avahi-daemon,
/// with the TXT record of ``Advertisement``, and keeps it published across collisions and daemon
/// restarts (``ServicePublisher`` does the work; this adds what share advertises).
public final class ReceiverAdvertiser: Sendable {
    private let publisher: ServicePublisher

    /// Publishes `name` on `port` for the receiver with `fingerprint`.
    /// - Throws: ``DiscoveryError`` for a name or record Avahi cannot take. An absent daemon is
    ///   not an error here: it is reported through ``events`` and retried.
    public init(name: String, port: UInt16, fingerprint: Fingerprint) throws(DiscoveryError) {
        publisher = try ServicePublisher.publish(
            name: name, type: ServiceType.share, port: port, txt: Advertisement.txt(for: fingerprint))
    }

    /// What happens to the publication (published, renamed, daemon gone or back).
    public var events: AsyncStream<PublisherEvent> { publisher.events }

    /// The name currently published (it changes after a collision).
    public var name: String { publisher.name }

    /// Withdraws the service.
    public func close() { publisher.close() }
}
