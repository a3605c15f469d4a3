/// Who holds the receiver's connection slots, and whom to drop when they are full
/// (docs/SECURITY.md, "Admission"). Pure state: the ``Admission`` around it owns the lock and the
/// clock.
///
/// A connection is **pending** from the moment it is accepted until its offer (or pairing
/// request) arrives, and a **transfer** after that. Pending connections cost nothing to make, so
/// they must never starve others: when a source (one IPv4 address, or one IPv6 /64) holds
/// ``Limits/pendingPerSource`` of them, its own oldest is dropped for its new one; when
/// ``Limits/pending`` are held in all, the oldest pending connection of the source holding the
/// most is dropped. A sender whose key is verified here (or vouched for by a team CA) is never
/// dropped once its key is known, and has ``Limits/reservedTransfers`` transfer slots beyond
/// ``Limits/transfers`` that no one else may use.
struct AdmissionTable {
    /// The slots.
    struct Limits: Sendable, Equatable {
        /// Pending connections at once, from everyone.
        var pending: Int
        /// Pending connections at once from one source.
        var pendingPerSource: Int
        /// Transfers at once.
        var transfers: Int
        /// Transfers beyond ``transfers`` for verified senders only.
        var reservedTransfers: Int
    }

    /// Where a connection stands.
    enum Phase: Equatable {
        /// Accepted; no offer yet. `known`: its key is verified here (then it is never dropped).
        case pending(known: Bool)
        /// Its offer arrived: it holds a transfer slot.
        case transfer(known: Bool)
    }

    /// What became of a new connection.
    enum Admission: Equatable {
        /// It may go on; the connections listed were dropped to make room for it.
        case admitted(dropping: [Int])
        /// Every slot is held by connections that may not be dropped: close it.
        case refused
    }

    private struct Connection {
        var source: String
        var since: ContinuousClock.Instant
        var phase: Phase
    }

    let limits: Limits
    private var connections: [Int: Connection] = [:]

    init(limits: Limits) {
        self.limits = limits
    }

    /// Pending connections.
    var pendingCount: Int { connections.values.count { if case .pending = $0.phase { true } else { false } } }
    /// Connections holding a transfer slot.
    var transferCount: Int { connections.values.count { if case .transfer = $0.phase { true } else { false } } }
    /// Where a connection stands (nil: not here, or dropped).
    func phase(of id: Int) -> Phase? { connections[id]?.phase }

    /// Takes in a new connection from `source`, dropping others if that is what makes room.
    mutating func admit(_ id: Int, source: String, at now: ContinuousClock.Instant) -> Admission {
        var dropping: [Int] = []
        let own = droppable().filter { connections[$0]?.source == source }
        let ownPending = connections.values.count { $0.source == source && $0.phase == .pending(known: false) }
        if ownPending >= limits.pendingPerSource, let oldest = own.first {
            dropping.append(oldest)
        } else if pendingCount >= limits.pending {
            guard let victim = victim() else { return .refused }
            dropping.append(victim)
        }
        for dropped in dropping { connections[dropped] = nil }
        connections[id] = Connection(source: source, since: now, phase: .pending(known: false))
        return .admitted(dropping: dropping)
    }

    /// The connection's key is known: `known` when it is verified here (or by a team CA).
    mutating func identified(_ id: Int, known: Bool) {
        guard case .pending = connections[id]?.phase else { return }
        connections[id]?.phase = .pending(known: known)
    }

    /// Whether the connection would get a transfer slot now (asked at its HELLO, so a busy
    /// receiver says so before the offer is sent).
    func hasTransferSlot(for id: Int, known: Bool) -> Bool {
        if case .transfer = connections[id]?.phase { return true }
        let knownTransfers = connections.values.count { $0.phase == .transfer(known: true) }
        let unknownTransfers = transferCount - knownTransfers
        if known { return transferCount < limits.transfers + limits.reservedTransfers }
        // Verified senders use the reserved slots first, so they never take one from anyone else.
        return unknownTransfers + max(0, knownTransfers - limits.reservedTransfers) < limits.transfers
    }

    /// Gives the connection a transfer slot (its offer arrived); false when none is free.
    mutating func startTransfer(_ id: Int, known: Bool) -> Bool {
        guard connections[id] != nil else { return false }
        guard hasTransferSlot(for: id, known: known) else { return false }
        connections[id]?.phase = .transfer(known: known)
        return true
    }

    /// The connection ended.
    mutating func remove(_ id: Int) {
        connections[id] = nil
    }

    /// Pending connections that may be dropped (their key is not known to be verified), oldest first.
    private func droppable() -> [Int] {
        connections.filter { $0.value.phase == .pending(known: false) }
            .sorted { ($0.value.since, $0.key) < ($1.value.since, $1.key) }
            .map(\.key)
    }

    /// The oldest droppable connection of the source holding the most droppable ones.
    private func victim() -> Int? {
        let candidates = droppable()
        var counts: [String: Int] = [:]
        for id in candidates { counts[connections[id]!.source, default: 0] += 1 }
        guard let most = counts.values.max() else { return nil }
        return candidates.first { counts[connections[$0]!.source] == most }
    }
}
