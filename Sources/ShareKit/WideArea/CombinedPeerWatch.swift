public import ShareDNS
public import ShareDiscovery
import Synchronization

/// `share peers --watch`: the local network's live events (Avahi) and a poll of the wide-area
/// domains every few seconds (DNS has no push here), merged by fingerprint, reported as changes.
public final class CombinedPeerWatch: Sendable {
    /// A change of the merged view.
    public enum Event: Sendable, Hashable {
        /// A receiver is seen for the first time.
        case appeared(MergedService)
        /// A receiver changed (an address, a domain, its port or TXT).
        case updated(MergedService)
        /// A receiver is gone from every place it was seen.
        case disappeared(name: String)
        /// The local network and the first poll of every domain have been reported.
        case allForNow
        /// A place could not be searched (reported once until it recovers).
        case warning(String)
        /// The local network's browser failed and there is no wide-area domain to go on with.
        case failure(DiscoveryError)
    }

    private enum Input: Sendable {
        case local(BrowserEvent)
        case wideArea(WideAreaSnapshot)
    }

    /// The changes, in order; finishes after ``close()``.
    public let events: AsyncStream<Event>
    private let tasks: Mutex<[Task<Void, Never>]>
    private let browser: ServiceBrowser?

    /// Starts watching. `browser` is nil when the local network cannot be browsed (then only
    /// the domains are watched); `domains` are polled every `interval`, and with `discover` the
    /// browse domains DNS names are looked for every `rediscoverEvery` polls.
    public init(browser: ServiceBrowser?, domains: [DNSName], discover: Bool, interval: Duration, rediscoverEvery: Int = 12) {
        self.browser = browser
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self)
        events = stream
        let (inputs, feed) = AsyncStream.makeStream(of: Input.self)
        var tasks: [Task<Void, Never>] = []
        if let browser {
            tasks.append(
                Task {
                    for await event in browser.events { feed.yield(.local(event)) }
                })
        }
        tasks.append(
            Task {
                var known = domains
                var poll = 0
                while !Task.isCancelled {
                    let snapshot = await WideAreaBrowser.snapshot(
                        domains: known, discover: discover && poll % max(1, rediscoverEvery) == 0,
                        timeout: max(interval, .seconds(3)))
                    for text in snapshot.domains {
                        if let name = try? DNSName(text), !known.contains(name) { known.append(name) }
                    }
                    feed.yield(.wideArea(snapshot))
                    poll += 1
                    try? await Task.sleep(for: interval)
                }
            })
        let hasLocal = browser != nil
        tasks.append(
            Task {
                var merger = WatchState(waitingForLocal: hasLocal)
                for await input in inputs {
                    for event in merger.apply(input) { continuation.yield(event) }
                    if merger.failed { break }
                }
                continuation.finish()
            })
        self.tasks = Mutex(tasks)
        let feedEnd = feed
        continuation.onTermination = { _ in feedEnd.finish() }
    }

    /// Stops watching and finishes ``events``.
    public func close() {
        browser?.close()
        let tasks = self.tasks.withLock { $0 }
        for task in tasks { task.cancel() }
    }

    /// The merged view and what was last reported.
    private struct WatchState {
        var local: [String: DiscoveredService] = [:]
        var wideArea: [DiscoveredService] = []
        var reported: [String: MergedService] = [:]
        var warnings: Set<String> = []
        var waitingForLocal: Bool
        var waitingForWideArea = true
        var sentAllForNow = false
        var failed = false

        mutating func apply(_ input: Input) -> [Event] {
            var events: [Event] = []
            switch input {
            case .local(.appeared(let service)), .local(.updated(let service)):
                local[service.name] = service
            case .local(.disappeared(let name)):
                local[name] = nil
            case .local(.allForNow):
                waitingForLocal = false
            case .local(.failure(let error)):
                waitingForLocal = false
                guard !wideArea.isEmpty || !reported.isEmpty else {
                    failed = true
                    return [.failure(error)]
                }
                events.append(.warning("the local network: \(error)"))
            case .wideArea(let snapshot):
                wideArea = snapshot.services
                waitingForWideArea = false
                let current = Set(snapshot.warnings)
                for warning in snapshot.warnings where !warnings.contains(warning) { events.append(.warning(warning)) }
                warnings = current
            }
            let merged = PeerMerger.merge(local.values.sorted { $0.name < $1.name } + wideArea)
            var now: [String: MergedService] = [:]
            for service in merged { now[service.key] = service }
            for service in merged {
                switch reported[service.key] {
                case nil: events.append(.appeared(service))
                case let old? where old != service: events.append(.updated(service))
                default: break
                }
            }
            for (key, old) in reported.sorted(by: { $0.key < $1.key }) where now[key] == nil {
                events.append(.disappeared(name: old.service.name))
            }
            reported = now
            if !sentAllForNow && !waitingForLocal && !waitingForWideArea {
                sentAllForNow = true
                events.append(.allForNow)
            }
            return events
        }
    }
}
