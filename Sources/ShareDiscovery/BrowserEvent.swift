/// What a ``ServiceBrowser`` saw; delivered in order on ``ServiceBrowser/events``.
public enum BrowserEvent: Sendable, Hashable {
    /// A service was seen and resolved for the first time. It carries the addresses resolved
    /// so far; those of its other interfaces and protocols usually follow within milliseconds
    /// as ``updated(_:)``.
    case appeared(DiscoveredService)
    /// A known service changed: an address came or went, or its port, host or TXT changed.
    case updated(DiscoveredService)
    /// The service with this name is gone from every interface and protocol.
    case disappeared(name: String)
    /// Every service known to the daemon so far has been reported, and the resolutions
    /// started for them have finished or timed out. Sent once per browser.
    case allForNow
    /// Browsing stopped: the daemon went away (``DiscoveryError/daemonLost``, e.g. it
    /// restarted) or refused the browse. Nothing follows; start a new browser to go on.
    case failure(DiscoveryError)
}
