/// What happened to a published service; delivered in order on ``ServicePublisher/events``.
public enum PublisherEvent: Sendable, Hashable {
    /// The service is announced on the network under `name`.
    case published(name: String)
    /// Another host (or another program here) already uses the name: the service is being
    /// announced again under `to`. A ``published(name:)`` follows once it is established.
    case renamed(from: String, to: String)
    /// avahi-daemon or D-Bus is not reachable, so the service is not discoverable; the error
    /// says why and how to fix it. The publisher keeps trying and reports
    /// ``daemonReturned`` when the daemon is back. Reported again only if the reason changes.
    case daemonUnavailable(DiscoveryError)
    /// avahi-daemon is reachable again; the service is being announced again.
    case daemonReturned
    /// Avahi refused the service for good (not a daemon outage); the publisher stops trying.
    case failed(DiscoveryError)
}
