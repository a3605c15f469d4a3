/// What happened to a published service; delivered in order on ``ServicePublisher/events``.
public enum PublisherEvent: Sendable, Hashable {
    /// The service is announced on the network under `name`.
    case published(name: String)
    /// Another host (or another program here) already uses the name: the service is being
    /// announced again under `to`. A ``published(name:)`` follows once it is established.
    case renamed(from: String, to: String)
    /// The service is not discoverable for now: avahi-daemon or D-Bus is not reachable (or
    /// the daemon withdrew the records). The error says why and how to fix it. The publisher
    /// keeps trying and reports ``daemonReturned`` when the daemon is back. Reported once per
    /// outage, with the first reason seen.
    case daemonUnavailable(DiscoveryError)
    /// avahi-daemon is reachable again; the service is being announced again.
    case daemonReturned
    /// Avahi refused the service itself when it was added (not a daemon outage), or no free
    /// name was found; the publisher stops trying.
    case failed(DiscoveryError)
}
