public import ShareDNS
public import ShareDiscovery

/// What `share peers` and `share send --to NAME` see: the local network (Avahi, multicast DNS)
/// and every configured or discovered wide-area domain (unicast DNS), merged by fingerprint.
public enum CombinedPeerLookup {
    /// What one look found.
    public struct Sightings: Sendable {
        /// The receivers, each once.
        public var merged: [MergedService]
        /// One line per place that could not be searched ("office.example: no answer from ...").
        public var warnings: [String]
    }

    /// The wide-area domains to browse: the settings' publishing domain and browse domains, plus
    /// `extra`; names that are not domain names become warnings.
    public static func domains(settings: NodeSettings, extra: [String]) -> (domains: [DNSName], warnings: [String]) {
        let wide = settings.wideArea
        var domains: [DNSName] = []
        var warnings: [String] = []
        for text in [wide?.domain].compactMap({ $0 }) + (wide?.browseDomains ?? []) + extra {
            do {
                let name = try DNSName(text)
                if !domains.contains(name) && !name.labels.isEmpty { domains.append(name) }
            } catch {
                warnings.append("'\(text)' is not a domain name: \(error)")
            }
        }
        return (domains, warnings)
    }

    /// Whether to look for browse domains in DNS (RFC 6763 §11): the setting, on by default.
    public static func discovers(settings: NodeSettings) -> Bool {
        settings.wideArea?.discoverBrowseDomains ?? true
    }

    /// Looks on the local network with `local` and in the wide-area domains at the same time.
    ///
    /// - Throws: the local network's error (e.g. no avahi-daemon, ``DiscoveryError/isDaemonUnavailable``)
    ///   only when no wide-area domain was configured or answered; otherwise it becomes a warning.
    public static func look(
        settings: NodeSettings, extraDomains: [String] = [], timeout: Duration,
        local: @escaping @Sendable () async throws(DiscoveryError) -> [DiscoveredService]
    ) async throws(DiscoveryError) -> Sightings {
        let (domains, warnings) = self.domains(settings: settings, extra: extraDomains)
        let discover = discovers(settings: settings)
        let localTask = Task { () -> Result<[DiscoveredService], DiscoveryError> in
            do throws(DiscoveryError) {
                return .success(try await local())
            } catch {
                return .failure(error)
            }
        }
        let wide = await WideAreaBrowser.snapshot(domains: domains, discover: discover, timeout: timeout)
        var services: [DiscoveredService] = []
        var allWarnings = warnings
        switch await localTask.value {
        case .success(let found):
            services = found
        case .failure(let error):
            guard !domains.isEmpty || !wide.domains.isEmpty else { throw error }
            allWarnings.append("the local network: \(error)")
        }
        return Sightings(merged: PeerMerger.merge(services + wide.services), warnings: allWarnings + wide.warnings)
    }
}
