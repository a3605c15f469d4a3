import ShareDiscovery

/// The receivers nearby, for `share peers` and `share send --to NAME`: the local network through
/// avahi-daemon and the wide-area DNS domains (``CombinedPeerLookup``), as this machine sees them
/// (``PeerDirectory``). The command line asks here and never drives the Avahi browser itself.
public enum NearbyPeers {
    /// Looks on the local network and in the wide-area domains at the same time: Avahi's cache
    /// (what it reports within `timeout`), or with `listeningFor` everything Avahi reports that long.
    ///
    /// - Throws: the local network's error (e.g. no avahi-daemon, ``PeerDiscoveryError/isDaemonUnavailable``)
    ///   only when no wide-area domain was configured or answered; otherwise it becomes a warning.
    public static func look(
        settings: NodeSettings, extraDomains: [String] = [], timeout: Duration, listeningFor: Duration? = nil
    ) async throws(PeerDiscoveryError) -> CombinedPeerLookup.Sightings {
        do {
            return try await CombinedPeerLookup.look(settings: settings, extraDomains: extraDomains, timeout: timeout) {
                () throws(DiscoveryError) in
                if let listeningFor { return try await listen(for: listeningFor) }
                return try await ServiceBrowser.snapshot(timeout: timeout)
            }
        } catch {
            throw PeerDiscoveryError(error)
        }
    }

    /// One line for each wide-area domain, in the settings or in `extraDomains`, that is not a domain
    /// name (and is not searched).
    public static func domainWarnings(settings: NodeSettings, extraDomains: [String]) -> [String] {
        CombinedPeerLookup.domains(settings: settings, extra: extraDomains).warnings
    }

    /// The peers among what one look found (``look(settings:extraDomains:timeout:listeningFor:)``).
    /// - Throws: ``ConfigurationError`` when the trust store cannot be read (it fails closed).
    public static func peers(_ sightings: CombinedPeerLookup.Sightings, node: LocalNode) throws(ConfigurationError)
        -> [NearbyPeer]
    {
        try PeerDirectory.nearby(sightings.merged, node: node)
    }

    /// Collects services for `duration`.
    static func listen(for duration: Duration) async throws(DiscoveryError) -> [DiscoveredService] {
        let browser = try ServiceBrowser()
        let deadline = Task {
            try? await Task.sleep(for: duration)
            browser.close()
        }
        defer { deadline.cancel() }
        var services: [String: DiscoveredService] = [:]
        for await event in browser.events {
            switch event {
            case .appeared(let service), .updated(let service): services[service.name] = service
            case .disappeared(let name): services[name] = nil
            case .allForNow: break
            case .failure(let error): throw error
            }
        }
        return services.values.sorted { $0.name < $1.name }
    }
}
