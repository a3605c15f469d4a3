import ShareDiscovery

/// The receivers on the local network as Avahi finds them, for choosing receivers on the terminal
/// (`share send FILE...` without `--to`): each update is the whole list so far.
public final class NearbyPeerBrowser: Sendable {
    /// What Avahi reported.
    public struct Update: Sendable {
        /// The receivers seen so far, as this machine sees them (empty when the trust store cannot
        /// be read).
        public var peers: [NearbyPeer]
        /// Whether Avahi has now reported every receiver it knew of when the browse began.
        public var allForNow: Bool
    }

    /// The updates, one per event from Avahi; finishes after ``close()`` or when browsing fails.
    public let updates: AsyncStream<Update>
    private let browser: ServiceBrowser

    /// Starts browsing.
    /// - Throws: when avahi-daemon or D-Bus cannot be reached (``PeerDiscoveryError/isDaemonUnavailable``).
    public init(node: LocalNode) throws(PeerDiscoveryError) {
        let browser: ServiceBrowser
        do {
            browser = try ServiceBrowser()
        } catch {
            throw PeerDiscoveryError(error)
        }
        self.browser = browser
        let (stream, continuation) = AsyncStream.makeStream(of: Update.self)
        updates = stream
        Task {
            var services: [String: DiscoveredService] = [:]
            for await event in browser.events {
                var allForNow = false
                switch event {
                case .appeared(let service), .updated(let service): services[service.name] = service
                case .disappeared(let name): services[name] = nil
                case .allForNow: allForNow = true
                case .failure: break
                }
                let peers = (try? PeerDirectory.nearby(Array(services.values), node: node)) ?? []
                continuation.yield(Update(peers: peers, allForNow: allForNow))
            }
            continuation.finish()
        }
    }

    /// Stops browsing and finishes ``updates``.
    public func close() {
        browser.close()
    }
}
