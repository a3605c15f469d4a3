/// Merges per-interface, per-protocol browse and resolve results into one
/// ``DiscoveredService`` per name, and says which ``BrowserEvent``s that produces.
///
/// Pure state, no Avahi: the browser core feeds it and forwards the events it returns.
/// A name "appears" only once one of its instances has resolved (before that there is no
/// host or port to show), and "disappears" only when its last instance is removed.
struct ServiceAggregator {
    /// One instance as Avahi reports it: a name seen on one interface over one protocol.
    struct InstanceKey: Hashable {
        /// The interface index the instance was seen on.
        var interfaceIndex: Int32
        /// The protocol (IPv4 or IPv6 mDNS) it was seen over.
        var family: ServiceAddress.Family
        /// The instance name.
        var name: String
    }

    /// The data one resolver found for one instance.
    struct Resolution: Hashable {
        var host: String
        var port: UInt16
        var address: ServiceAddress?
        var txt: [String: String]
    }

    private enum InstanceState: Hashable {
        case resolving
        case resolved(Resolution)
        case failed
    }

    private struct Instance: Hashable {
        var state: InstanceState
        var isLocal: Bool
    }

    /// The most service names kept at once (docs/SECURITY.md): a responder that advertises
    /// thousands of services does not grow the table without bound; later names are ignored
    /// until others go away.
    static let maxNames = 256

    /// The service type and domain every instance shares.
    let type: String
    let domain: String
    private var instances: [String: [InstanceKey: Instance]] = [:]
    /// What was last reported for each name, so only real changes produce events.
    private var reported: [String: DiscoveredService] = [:]

    init(type: String, domain: String = "local") {
        self.type = type
        self.domain = domain
    }

    /// Instances whose resolution has neither succeeded nor failed yet.
    var pendingCount: Int {
        instances.values.reduce(0) { count, byKey in
            count + byKey.values.filter { $0.state == .resolving }.count
        }
    }

    /// The services reported so far, by name.
    var services: [String: DiscoveredService] { reported }

    /// The browser saw a new instance; its resolution starts now. Produces no event. Returns false
    /// (and keeps nothing) when the table is full and the name is new: nothing is resolved for it.
    @discardableResult
    mutating func instanceAdded(_ key: InstanceKey, isLocal: Bool) -> Bool {
        if instances[key.name] == nil && instances.count >= Self.maxNames { return false }
        instances[key.name, default: [:]][key] = Instance(state: .resolving, isLocal: isLocal)
        return true
    }

    /// A resolver found (or updated) the data of an instance.
    mutating func instanceResolved(_ key: InstanceKey, _ resolution: Resolution, isLocal: Bool) -> [BrowserEvent] {
        guard var instance = instances[key.name]?[key] else { return [] }
        instance.state = .resolved(resolution)
        instance.isLocal = instance.isLocal || isLocal
        instances[key.name]?[key] = instance
        return reconcile(key.name)
    }

    /// A resolver gave up on an instance; the other instances of the name are unaffected.
    mutating func instanceFailed(_ key: InstanceKey) -> [BrowserEvent] {
        guard instances[key.name]?[key] != nil else { return [] }
        instances[key.name]?[key]?.state = .failed
        return reconcile(key.name)
    }

    /// The browser saw an instance go away.
    mutating func instanceRemoved(_ key: InstanceKey) -> [BrowserEvent] {
        guard instances[key.name]?[key] != nil else { return [] }
        instances[key.name]?[key] = nil
        if instances[key.name]?.isEmpty == true { instances[key.name] = nil }
        return reconcile(key.name)
    }

    /// Compares the merged view of `name` with what was last reported.
    private mutating func reconcile(_ name: String) -> [BrowserEvent] {
        let merged = merge(name)
        let previous = reported[name]
        reported[name] = merged
        switch (previous, merged) {
        case (nil, nil): return []
        case (nil, let service?): return [.appeared(service)]
        case (_?, nil): return [.disappeared(name: name)]
        case (let old?, let new?): return old == new ? [] : [.updated(new)]
        }
    }

    /// One service from all resolved instances of `name`, or nil if none is resolved.
    /// Host, port and TXT come from the first resolved instance in a fixed order (IPv4 mDNS
    /// before IPv6, then by interface index), so they do not flip between equal answers.
    private func merge(_ name: String) -> DiscoveredService? {
        guard let byKey = instances[name] else { return nil }
        let resolved: [(InstanceKey, Resolution)] = byKey.compactMap { key, instance in
            if case .resolved(let resolution) = instance.state { (key, resolution) } else { nil }
        }
        .sorted { lhs, rhs in
            (lhs.0.family == .ipv4 ? 0 : 1, lhs.0.interfaceIndex) < (
                rhs.0.family == .ipv4 ? 0 : 1, rhs.0.interfaceIndex
            )
        }
        guard let primary = resolved.first?.1 else { return nil }
        return DiscoveredService(
            name: name, type: type, domain: domain, host: primary.host, port: primary.port,
            addresses: resolved.compactMap { $0.1.address }, txt: primary.txt,
            isLocal: byKey.values.contains { $0.isLocal })
    }
}
