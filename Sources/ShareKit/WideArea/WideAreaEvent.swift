/// What happened to a receiver's entry in a wide-area DNS domain; delivered in order on
/// ``WideAreaPublisher/events``.
public enum WideAreaEvent: Sendable, Hashable {
    /// The entry is in DNS: `name` in `domain`, pointing at `host` with `addresses`. `reclaimed`:
    /// it replaced this machine's own stale entry (same fingerprint) left by an earlier run.
    case published(name: String, domain: String, host: String, addresses: [String], reclaimed: Bool)
    /// Another key's entry holds the name: publishing under `to` instead.
    case renamed(from: String, to: String, domain: String)
    /// This machine's addresses changed and DNS now has the new ones.
    case addressesChanged(name: String, domain: String, addresses: [String])
    /// The entry is not in DNS; `reason` says why and what to do. With `retrying` the publisher
    /// tries again by itself (the server did not answer); otherwise it gave up (the server refused
    /// the key or the update).
    case unavailable(domain: String, reason: String, retrying: Bool)
    /// The entry was removed from DNS (a clean stop).
    case withdrawn(name: String, domain: String)
    /// The entry could not be removed; it stays in DNS until the next start reclaims it.
    case withdrawFailed(name: String, domain: String, reason: String)
}
