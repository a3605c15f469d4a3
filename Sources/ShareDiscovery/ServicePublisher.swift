/// Announces one service (a `share receive` endpoint) on the LAN through avahi-daemon, and
/// keeps it announced.
///
/// ```swift
/// let publisher = try ServicePublisher.publish(name: "desk", port: 47321, txt: ["v": "1", "fp": prefix])
/// for await event in publisher.events {
///     switch event {
///     case .published(let name): print("Discoverable as \(name)")
///     case .renamed(let old, let new): print("'\(old)' is taken; now '\(new)'")
///     case .daemonUnavailable(let reason): print("Not discoverable: \(reason)")
///     case .daemonReturned: print("Discoverable again")
///     case .failed(let error): print("Error: \(error)")
///     }
/// }
/// ```
///
/// - A name taken by another host is replaced by Avahi's alternative ("desk #2"), reported
///   as ``PublisherEvent/renamed(from:to:)``.
/// - Without avahi-daemon or D-Bus the publisher does not fail: it reports
///   ``PublisherEvent/daemonUnavailable(_:)`` (the reason says how to fix it), waits, and
///   announces the service by itself when the daemon starts or restarts
///   (`AVAHI_CLIENT_NO_FAIL`, plus a new client after each disconnection).
/// - ``close()``, or releasing the publisher, withdraws the service (goodbye packets).
///
/// Thread-safe. Events are delivered through an `AsyncStream` fed from Avahi's own thread;
/// the stream is buffered without bound (a publisher produces few events) and finishes on ``close()``.
public final class ServicePublisher: Sendable {
    /// Everything that happens to the service, in order. Finishes when the publisher closes.
    public let events: AsyncStream<PublisherEvent>
    private let core: PublisherCore

    private init(events: AsyncStream<PublisherEvent>, core: PublisherCore) {
        self.events = events
        self.core = core
    }

    deinit {
        core.close()
    }

    /// Starts announcing a service.
    ///
    /// - Parameters:
    ///   - name: the instance name (the device name), at most 63 bytes of UTF-8, no control characters.
    ///   - type: the service type, `_share._tcp` by default.
    ///   - port: the TCP port the service listens on.
    ///   - txt: TXT attributes, e.g. `["v": "1", "fp": "…"]`; see ``TXTRecord/encode(_:)``.
    /// - Returns: the publisher; watch ``events`` for the outcome.
    /// - Throws: ``DiscoveryError`` for an invalid name, type or TXT attribute (checked before
    ///   anything reaches Avahi). A missing daemon is an event, not an error.
    public static func publish(
        name: String, type: String = ServiceType.share, port: UInt16, txt: [String: String] = [:]
    ) throws(DiscoveryError) -> ServicePublisher {
        try ServiceName.validate(name)
        try ServiceType.validate(type)
        let entries = try TXTRecord.encode(txt)
        let (stream, continuation) = AsyncStream.makeStream(of: PublisherEvent.self)
        let core = try PublisherCore(name: name, type: type, port: port, txt: entries, continuation: continuation)
        return ServicePublisher(events: stream, core: core)
    }

    /// The name the service is announced (or being announced) under; differs from the
    /// requested one after a collision.
    public var name: String { core.currentName }

    /// Withdraws the service and finishes ``events``. Safe to call more than once.
    public func close() {
        core.close()
    }
}
