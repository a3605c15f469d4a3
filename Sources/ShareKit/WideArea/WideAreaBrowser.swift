import Dispatch
public import ShareDNS
public import ShareDiscovery
import Synchronization

/// Finds share receivers in wide-area DNS domains with plain unicast DNS through the system's
/// resolver (RFC 6763): the PTR records of `_share._tcp.<domain>`, then each instance's SRV and TXT
/// records, then the A and AAAA records of its host.
///
/// Every call blocks (it runs on the caller's thread, several lookups at once on threads of its
/// own); ``snapshot(domains:discover:timeout:)`` runs them off Swift's cooperative pool with a
/// deadline.
public enum WideAreaBrowser {
    /// Instances resolved at once per domain.
    static let parallelLookups = 4
    /// The most instances looked up in one domain, and the most browse domains taken from DNS:
    /// the answers come from the network, and a hostile server must not make share work forever.
    public static let maximumInstances = 1000
    public static let maximumDiscoveredDomains = 16

    /// The receivers published in `domain`; none when the domain has no `_share._tcp` records.
    /// - Throws: ``DNSLookupError`` when the server does not answer, refuses, or fails.
    public static func services(in domain: DNSName) throws(DNSLookupError) -> [DiscoveredService] {
        let resolver = try SystemResolver()
        let service: DNSName
        do {
            service = try WideAreaNames.service(in: domain)
        } catch {
            return []
        }
        var listed: [DNSName] = []
        for record in try resolver.lookup(service, .ptr).records {
            if case .pointer(let instance) = record.data, instance.parent == service, !listed.contains(instance),
                listed.count < maximumInstances
            {
                listed.append(instance)
            }
        }
        let results = Mutex<[Int: Result<DiscoveredService?, DNSLookupError>]>([:])
        let next = Atomic<Int>(0)
        let instances = listed
        onThreads(min(parallelLookups, instances.count)) {
            guard let resolver = try? SystemResolver() else { return }
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < instances.count else { return }
                let result = Result { () throws(DNSLookupError) in
                    try resolve(instances[index], in: domain, resolver: resolver)
                }
                results.withLock { $0[index] = result }
            }
        }
        let all = results.withLock { $0 }
        var found: [DiscoveredService] = []
        var failure: DNSLookupError?
        for index in instances.indices {
            switch all[index] {
            case .success(let service?): found.append(service)
            case .failure(let error): failure = failure ?? error
            default: break
            }
        }
        if found.isEmpty, let failure { throw failure }
        return found
    }

    /// One instance: its SRV (port, host), TXT and the host's addresses; nil when it has no SRV
    /// record or its host no address (a stale PTR left behind).
    static func resolve(_ instance: DNSName, in domain: DNSName, resolver: SystemResolver) throws(DNSLookupError)
        -> DiscoveredService?
    {
        let (services, additional) = try resolver.lookup(instance, .srv)
        guard let first = services.first, case .service(_, _, let port, let target) = first.data else { return nil }
        var strings: [[UInt8]] = []
        if case .text(let text)? = try resolver.lookup(instance, .txt).records.first?.data { strings = text }
        var addresses = addressRecords(additional, of: target)
        if addresses.isEmpty {
            addresses = try resolver.lookup(target, .a).records + resolver.lookup(target, .aaaa).records
        }
        let serviceAddresses = addresses.compactMap { record -> ServiceAddress? in
            switch record.data {
            case .ipv4(let bytes):
                ServiceAddress(ip: IPAddressText.format(bytes), family: .ipv4, interfaceName: nil, interfaceIndex: 0)
            case .ipv6(let bytes):
                ServiceAddress(ip: IPAddressText.format(bytes), family: .ipv6, interfaceName: nil, interfaceIndex: 0)
            default: nil
            }
        }
        guard !serviceAddresses.isEmpty, let name = instance.firstLabelText else { return nil }
        return DiscoveredService(
            name: name, type: ServiceType.share, domain: domain.presentation, host: target.presentation, port: port,
            addresses: serviceAddresses, txt: TXTRecord.decode(strings), isLocal: false)
    }

    private static func addressRecords(_ records: [DNSRecord], of host: DNSName) -> [DNSRecord] {
        records.filter { ($0.type == .a || $0.type == .aaaa) && $0.name == host }
    }

    /// The browse domains DNS names for this machine (RFC 6763 §11): the PTR records of
    /// `b._dns-sd._udp` and `lb._dns-sd._udp` under each search domain of resolv.conf and under the
    /// reverse-mapping name of each of this machine's subnets (`0.2.168.192.in-addr.arpa`).
    /// Questions that fail are skipped without a word: looking for domains nobody configured is
    /// opportunistic, and a machine without wide-area DNS must not get warnings.
    public static func discoverDomains() -> [DNSName] {
        guard let resolver = try? SystemResolver() else { return [] }
        let parents = resolver.searchDomains + LocalAddresses.routable().compactMap(subnetName)
        var names: [DNSName] = []
        for parent in parents {
            for label in ["b", "lb"] {
                if let name = try? DNSName("\(label)._dns-sd._udp").appending(parent), !names.contains(name) {
                    names.append(name)
                }
            }
        }
        guard !names.isEmpty else { return [] }
        let questions = names
        let answers = Mutex<[Int: [DNSName]]>([:])
        let next = Atomic<Int>(0)
        onThreads(min(8, questions.count)) {
            guard let resolver = try? SystemResolver() else { return }
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < questions.count else { return }
                guard let records = try? resolver.lookup(questions[index], .ptr).records else { continue }
                let names = records.compactMap { record -> DNSName? in
                    if case .pointer(let domain) = record.data { domain } else { nil }
                }
                answers.withLock { $0[index] = names }
            }
        }
        let result = answers.withLock { $0 }
        var domains: [DNSName] = []
        for index in questions.indices {
            for domain in result[index] ?? [] where !domains.contains(domain) && domain != localDomain {
                domains.append(domain)
            }
        }
        return Array(domains.prefix(maximumDiscoveredDomains))
    }

    /// Runs `body` on `count` threads of its own at once (blocking lookups: not on Dispatch's
    /// pool, which runs only as many at once as there are cores) and waits for all of them.
    static func onThreads(_ count: Int, _ body: @escaping @Sendable () -> Void) {
        let group = DispatchGroup()
        for _ in 0..<count {
            group.enter()
            BlockingWork.start("share.dns-lookup") {
                body()
                group.leave()
            }
        }
        group.wait()
    }

    /// `local`, multicast DNS's domain: never browsed through unicast DNS.
    static let localDomain = try! DNSName("local")

    /// The reverse-mapping name of the subnet of an address: `0.2.168.192.in-addr.arpa` for
    /// 192.168.2.7/24, the nibbles of the network for IPv6 under `ip6.arpa`.
    static func subnetName(_ entry: LocalAddresses.Entry) -> DNSName? {
        var network = entry.bytes
        for index in network.indices {
            let kept = max(0, min(8, entry.prefixLength - index * 8))
            network[index] &= kept == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - kept))
        }
        let labels: [String]
        if network.count == 4 {
            labels = network.reversed().map(String.init) + ["in-addr", "arpa"]
        } else {
            let nibbles = network.flatMap { [$0 >> 4, $0 & 0x0F] }
            labels = nibbles.reversed().map { String($0, radix: 16) } + ["ip6", "arpa"]
        }
        return try? DNSName(labels: labels.map { Array($0.utf8) })
    }

    /// Looks in `domains` (and, with `discover`, in the browse domains DNS names for this machine),
    /// each on its own thread, and returns what was found within `timeout`: a domain that did not
    /// answer in time, or failed, is a warning and never holds up the others.
    public static func snapshot(domains: [DNSName], discover: Bool, timeout: Duration) async -> WideAreaSnapshot {
        let collector = SnapshotCollector()
        var started: Set<DNSName> = []
        func start(_ domain: DNSName) {
            guard started.insert(domain).inserted, domain != localDomain else { return }
            collector.begin(domain)
            BlockingWork.start("share.wide-area-browse") {
                collector.finish(domain, Result { () throws(DNSLookupError) in try services(in: domain) })
            }
        }
        for domain in domains { start(domain) }
        if discover {
            let known = started
            collector.beginDiscovery()
            BlockingWork.start("share.browse-domains") {
                for domain in discoverDomains() where !known.contains(domain) {
                    collector.begin(domain)
                    BlockingWork.start("share.wide-area-browse") {
                        collector.finish(domain, Result { () throws(DNSLookupError) in try services(in: domain) })
                    }
                }
                collector.finishDiscovery()
            }
        }
        return await collector.result(within: timeout)
    }
}

/// What ``WideAreaBrowser/snapshot(domains:discover:timeout:)`` found.
public struct WideAreaSnapshot: Sendable {
    /// The receivers of every domain that answered.
    public var services: [DiscoveredService]
    /// The domains that answered (some with no receivers), sorted.
    public var domains: [String]
    /// One line per domain that did not answer or failed ("office.example: no answer from ...").
    public var warnings: [String]
}

/// Gathers the results of the snapshot's threads and hands them over when all are in or the
/// time is up (whatever comes first); results arriving later are dropped.
private final class SnapshotCollector: Sendable {
    private struct State {
        var pending: Set<DNSName> = []
        var discovering = false
        var results: [DNSName: Result<[DiscoveredService], DNSLookupError>] = [:]
        var waiter: CheckedContinuation<Void, Never>?
        var done = false
    }

    private let state = Mutex(State())

    func begin(_ domain: DNSName) {
        state.withLock { _ = $0.pending.insert(domain) }
    }

    func beginDiscovery() {
        state.withLock { $0.discovering = true }
    }

    func finish(_ domain: DNSName, _ result: Result<[DiscoveredService], DNSLookupError>) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.done else { return nil }
            state.pending.remove(domain)
            state.results[domain] = result
            return Self.takeWaiterIfComplete(&state)
        }
        waiter?.resume()
    }

    func finishDiscovery() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.done else { return nil }
            state.discovering = false
            return Self.takeWaiterIfComplete(&state)
        }
        waiter?.resume()
    }

    private static func takeWaiterIfComplete(_ state: inout State) -> CheckedContinuation<Void, Never>? {
        guard state.pending.isEmpty, !state.discovering, let waiter = state.waiter else { return nil }
        state.waiter = nil
        state.done = true
        return waiter
    }

    func result(within timeout: Duration) async -> WideAreaSnapshot {
        let timer = Task { [self] in
            try? await Task.sleep(for: timeout)
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.done = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.done || (state.pending.isEmpty && !state.discovering) {
                    state.done = true
                    return true
                }
                state.waiter = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
        timer.cancel()
        return state.withLock { state in
            var snapshot = WideAreaSnapshot(services: [], domains: [], warnings: [])
            let seconds = Int(timeout.components.seconds)
            for (domain, result) in state.results.sorted(by: { $0.key.presentation < $1.key.presentation }) {
                switch result {
                case .success(let services):
                    snapshot.services += services
                    snapshot.domains.append(domain.presentation)
                case .failure(let error):
                    snapshot.warnings.append("\(domain.presentation): \(error)")
                }
            }
            for domain in state.pending.sorted(by: { $0.presentation < $1.presentation }) {
                snapshot.warnings.append("\(domain.presentation): no answer from DNS within \(seconds) s")
            }
            return snapshot
        }
    }
}
