/// Finds services of one type (by default `share` receivers) on every interface and protocol.
///
/// Each instance Avahi reports is resolved (one resolver per interface × protocol, asking
/// for an address of that protocol's family), and the results are merged per name into a
/// ``DiscoveredService``: see ``BrowserEvent`` for what is reported when.
///
/// ```swift
/// let peers = try await ServiceBrowser.snapshot(timeout: .seconds(3))
/// ```
///
/// Thread-safe. Events come through an unbounded `AsyncStream` fed from Avahi's thread;
/// ``close()`` (or releasing the browser) stops browsing and finishes the stream.
public final class ServiceBrowser: Sendable {
    /// The default time to wait for resolutions after the daemon's ALL_FOR_NOW.
    public static let defaultResolveTimeout: Duration = .seconds(2)

    /// What the browser sees, in order. Finishes on ``close()`` or after a ``BrowserEvent/failure(_:)``.
    public let events: AsyncStream<BrowserEvent>
    private let core: BrowserCore

    /// Starts browsing.
    ///
    /// - Parameters:
    ///   - type: the service type, `_share._tcp` by default.
    ///   - resolveTimeout: after the daemon reports that it has nothing more for now, how long
    ///     to wait for resolutions still running before sending ``BrowserEvent/allForNow``.
    /// - Throws: ``DiscoveryError/daemonNotRunning`` or
    ///   ``DiscoveryError/systemBusUnavailable(address:code:)`` when avahi-daemon or D-Bus
    ///   is not there (``DiscoveryError/isDaemonUnavailable``), or an invalid type.
    public convenience init(
        type: String = ServiceType.share, resolveTimeout: Duration = ServiceBrowser.defaultResolveTimeout
    ) throws(DiscoveryError) {
        try self.init(type: type, resolveTimeout: resolveTimeout, allForNowDeadline: nil)
    }

    init(type: String, resolveTimeout: Duration, allForNowDeadline: Duration?) throws(DiscoveryError) {
        try ServiceType.validate(type)
        let (stream, continuation) = AsyncStream.makeStream(of: BrowserEvent.self)
        core = try BrowserCore(
            type: type, resolveTimeout: resolveTimeout, allForNowDeadline: allForNowDeadline,
            continuation: continuation)
        events = stream
    }

    deinit {
        core.close()
    }

    /// Stops browsing and finishes ``events``. Safe to call more than once.
    public func close() {
        core.close()
    }

    /// Lists the services visible now: browses until ``BrowserEvent/allForNow`` (or until
    /// `timeout`, whichever comes first) and returns what was found, sorted by name.
    ///
    /// - Parameters:
    ///   - type: the service type, `_share._tcp` by default.
    ///   - timeout: the longest the call takes when the daemon answers.
    /// - Throws: a ``DiscoveryError``; when avahi-daemon or D-Bus is missing its
    ///   ``DiscoveryError/isDaemonUnavailable`` is true and its description says how to start it.
    public static func snapshot(
        type: String = ServiceType.share, timeout: Duration = .seconds(3)
    ) async throws(DiscoveryError) -> [DiscoveredService] {
        let browser = try ServiceBrowser(
            type: type, resolveTimeout: min(timeout, defaultResolveTimeout), allForNowDeadline: timeout)
        defer { browser.close() }
        var services: [String: DiscoveredService] = [:]
        loop: for await event in browser.events {
            switch event {
            case .appeared(let service), .updated(let service):
                services[service.name] = service
            case .disappeared(let name):
                services[name] = nil
            case .allForNow:
                break loop
            case .failure(let error):
                throw error
            }
        }
        return services.values.sorted { $0.name < $1.name }
    }
}
