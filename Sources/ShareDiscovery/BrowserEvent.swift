/// What a ``ServiceBrowser`` saw; delivered in order on ``ServiceBrowser/events``.
public enum BrowserEvent: Sendable, Hashable {
    /// A service was seen and resolved for the first time.
    case appeared(DiscoveredService)
    /// A known service changed: an address came or went, or its port, host or TXT changed.
    case updated(DiscoveredService)
    /// The service with this name is gone from every interface and protocol.
    case disappeared(name: String)
    /// Every service known to the daemon so far has been reported, and the resolutions
    /// started for them have finished or timed out. Sent once per browser.
    case allForNow
    /// Browsing stopped: the daemon went away or refused the browse. Nothing follows.
    case failure(DiscoveryError)
}
