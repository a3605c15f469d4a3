import ShareDiscovery

/// `share peers --watch`: the receivers nearby as they appear, change and disappear, on the local
/// network (Avahi's live events) and in the wide-area domains (polled), as this machine sees them.
/// Wraps ``CombinedPeerWatch`` and its Avahi browser, so the command line never drives Avahi.
public final class NearbyPeerWatch: Sendable {
    /// A change of the receivers nearby.
    public enum Event: Sendable {
        /// A receiver is seen for the first time (or the trust store could not be read).
        case appeared(Result<NearbyPeer, ConfigurationError>)
        /// A receiver changed (an address, a domain, its port or TXT).
        case updated(Result<NearbyPeer, ConfigurationError>)
        /// A receiver is gone from every place it was seen.
        case disappeared(name: String)
        /// The local network and the first poll of every domain have been reported.
        case allForNow
        /// A place could not be searched (reported once until it recovers).
        case warning(String)
        /// The local network's browser failed and there is no wide-area domain to go on with.
        case failure(PeerDiscoveryError)
    }

    /// The changes, in order; finishes after ``close()``.
    public let events: AsyncStream<Event>
    /// Why the local network cannot be watched, when only the wide-area domains are.
    public let localFailure: PeerDiscoveryError?
    private let watch: CombinedPeerWatch

    /// Starts watching the local network and the settings' wide-area domains plus `extraDomains`,
    /// each polled every `wideArea.watchSeconds` (5 by default). Domains that are not domain names
    /// are left out (``NearbyPeers/domainWarnings(settings:extraDomains:)`` says which).
    /// - Throws: when avahi-daemon cannot be reached and there is no wide-area domain to watch.
    public init(node: LocalNode, extraDomains: [String]) throws(PeerDiscoveryError) {
        let (domains, _) = CombinedPeerLookup.domains(settings: node.settings, extra: extraDomains)
        var browser: ServiceBrowser?
        var localFailure: PeerDiscoveryError?
        do {
            browser = try ServiceBrowser()
        } catch {
            // Without Avahi, watching still makes sense for the wide-area domains given.
            guard !domains.isEmpty else { throw PeerDiscoveryError(error) }
            localFailure = PeerDiscoveryError(error)
        }
        self.localFailure = localFailure
        let interval = Duration.milliseconds(Int(max(0.1, node.settings.wideArea?.watchSeconds ?? 5) * 1000))
        let watch = CombinedPeerWatch(
            browser: browser, domains: domains, discover: CombinedPeerLookup.discovers(settings: node.settings),
            interval: interval)
        self.watch = watch
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self)
        events = stream
        Task {
            func peer(_ service: MergedService) -> Result<NearbyPeer, ConfigurationError> {
                do throws(ConfigurationError) {
                    return .success(try PeerDirectory.nearby([service], node: node)[0])
                } catch {
                    return .failure(error)
                }
            }
            for await event in watch.events {
                switch event {
                case .appeared(let service): continuation.yield(.appeared(peer(service)))
                case .updated(let service): continuation.yield(.updated(peer(service)))
                case .disappeared(let name): continuation.yield(.disappeared(name: name))
                case .allForNow: continuation.yield(.allForNow)
                case .warning(let text): continuation.yield(.warning(text))
                case .failure(let error): continuation.yield(.failure(PeerDiscoveryError(error)))
                }
            }
            continuation.finish()
        }
    }

    /// Stops watching and finishes ``events``.
    public func close() {
        watch.close()
    }
}
