import Foundation
import ShareWire
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The receiver's connection slots, shared by the accepting thread and every connection's thread:
/// an ``AdmissionTable`` under a lock, and how a peer's address becomes its source.
final class Admission: Sendable {
    private let table: Mutex<AdmissionTable>
    private let nextID = Atomic<Int>(0)

    init(limits: AdmissionTable.Limits) {
        table = Mutex(AdmissionTable(limits: limits))
    }

    /// The limits in force.
    var limits: AdmissionTable.Limits { table.withLock { $0.limits } }

    /// Takes in a connection from `address` (`host:port`); returns its identifier and what to do.
    func admit(address: String) -> (id: Int, admission: AdmissionTable.Admission) {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let source = Self.source(of: ReceiveGate.host(of: address))
        return (id, table.withLock { $0.admit(id, source: source, at: .now) })
    }

    /// See ``AdmissionTable/identified(_:known:)``.
    func identified(_ id: Int, known: Bool) {
        table.withLock { $0.identified(id, known: known) }
    }

    /// A busy refusal for a sender that would find no transfer slot now, or nil.
    func busy(_ id: Int, known: Bool) -> Decision? {
        table.withLock { $0.hasTransferSlot(for: id, known: known) } ? nil : busyDecision
    }

    /// Gives the connection a transfer slot; a busy refusal when none is free.
    func startTransfer(_ id: Int, known: Bool) -> Decision? {
        table.withLock { $0.startTransfer(id, known: known) } ? nil : busyDecision
    }

    /// The connection ended.
    func remove(_ id: Int) {
        table.withLock { $0.remove(id) }
    }

    private var busyDecision: Decision {
        let transfers = limits.transfers
        return Decision(
            .busy,
            message: "the receiver is busy with \(transfers) transfer\(transfers == 1 ? "" : "s") at once; try again in a minute")
    }

    /// What a connection from `host` counts against: an IPv4 address is its own source; a routable
    /// IPv6 address counts with every address of its /64 (one host can hold any number of them); a
    /// link-local one (every host of the link shares fe80::/64) and anything else is its own source;
    /// an IPv4-mapped IPv6 address is its IPv4 address.
    static func source(of host: String) -> String {
        let plain = String(host.split(separator: "%", maxSplits: 1).first ?? "")
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, plain, &v6) == 1 else { return plain }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return bytes[12...].map(String.init).joined(separator: ".")
        }
        if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 { return host.lowercased() }
        let prefix = stride(from: 0, to: 8, by: 2).map { String(Int(bytes[$0]) << 8 | Int(bytes[$0 + 1]), radix: 16) }
        return prefix.joined(separator: ":") + "::/64"
    }
}
