@testable import ShareKit
import Testing

/// Who keeps a connection slot when they run out (docs/SECURITY.md, "Admission").
struct AdmissionTableTests {
    static let limits = AdmissionTable.Limits(pending: 8, pendingPerSource: 3, transfers: 2, reservedTransfers: 1)
    let start = ContinuousClock.now

    func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    @Test func aSourceOverItsShareLosesItsOwnOldestConnection() {
        var table = AdmissionTable(limits: Self.limits)
        for id in 1...3 { #expect(table.admit(id, source: "10.0.0.9", at: at(id)) == .admitted(dropping: [])) }
        _ = table.admit(10, source: "10.0.0.5", at: at(10))
        let r1 = table.admit(4, source: "10.0.0.9", at: at(20))
        #expect(r1 == .admitted(dropping: [1]))
        #expect(table.phase(of: 1) == nil)
        #expect(table.phase(of: 10) == .pending(known: false), "another source is not touched")
    }

    @Test func whenFullTheOldestOfTheBiggestSourceGoes() {
        var table = AdmissionTable(limits: Self.limits)
        var id = 0
        for source in ["a", "a", "a", "b", "b", "c", "d", "e"] {
            id += 1
            _ = table.admit(id, source: source, at: at(id))
        }
        #expect(table.pendingCount == 8)
        let r2 = table.admit(100, source: "honest", at: at(100))
        #expect(r2 == .admitted(dropping: [1]), "a holds the most")
        let r3 = table.admit(101, source: "f", at: at(101))
        #expect(r3 == .admitted(dropping: [2]), "then a and b hold 2 each; a's is the oldest")
    }

    @Test func anHonestSenderSurvivesAnAttackerChurningFromManySources() {
        // An attacker with 6 addresses reconnects as fast as it is dropped; the table holds 8.
        var table = AdmissionTable(limits: Self.limits)
        var id = 0
        var time = 0
        func attack() {
            id += 1
            time += 1
            _ = table.admit(id, source: "attacker-\(id % 6)", at: at(time))
        }
        for _ in 0..<8 { attack() }
        time += 1
        _ = table.admit(0, source: "honest", at: at(time))
        for _ in 0..<1_000 {
            attack()
            #expect(table.phase(of: 0) == .pending(known: false))
        }
    }

    @Test func aVerifiedSenderIsNeverDroppedAndGetsTheReservedTransferSlot() {
        var table = AdmissionTable(limits: Self.limits)
        _ = table.admit(1, source: "friend", at: at(1))
        table.identified(1, known: true)
        for id in 2...9 { _ = table.admit(id, source: "friend", at: at(id)) }
        #expect(table.phase(of: 1) == .pending(known: true), "its own later connections do not push it out")
        #expect(table.phase(of: 2) == nil, "its unverified connections are dropped, oldest first")
        #expect(table.pendingCount == 4)

        // Two unknown transfers fill the common slots; the verified one still gets the reserved one.
        var busy = AdmissionTable(limits: Self.limits)
        for id in 1...4 { _ = busy.admit(id, source: "s\(id)", at: at(id)) }
        let r4 = busy.startTransfer(1, known: false)
        #expect(r4)
        let r5 = busy.startTransfer(2, known: false)
        #expect(r5)
        #expect(!busy.hasTransferSlot(for: 3, known: false))
        let r6 = busy.startTransfer(3, known: false)
        #expect(!r6)
        #expect(busy.hasTransferSlot(for: 4, known: true))
        let r7 = busy.startTransfer(4, known: true)
        #expect(r7)
        busy.remove(1)
        let r8 = busy.startTransfer(3, known: false)
        #expect(r8, "a slot freed is taken again")
    }

    @Test func whenEverySlotIsHeldByVerifiedSendersANewConnectionIsRefused() {
        var table = AdmissionTable(limits: Self.limits)
        for id in 1...8 {
            _ = table.admit(id, source: "v\(id)", at: at(id))
            table.identified(id, known: true)
        }
        let r9 = table.admit(9, source: "x", at: at(9))
        #expect(r9 == .refused)
        #expect(table.phase(of: 9) == nil)
    }

    @Test func transfersDoNotCountAsPending() {
        var table = AdmissionTable(limits: Self.limits)
        for id in 1...3 { _ = table.admit(id, source: "s", at: at(id)) }
        let r10 = table.startTransfer(1, known: false)
        #expect(r10)
        let r11 = table.admit(4, source: "s", at: at(4))
        #expect(r11 == .admitted(dropping: []), "2 pending from s: room for a third")
        let r12 = table.admit(5, source: "s", at: at(5))
        #expect(r12 == .admitted(dropping: [2]))
        #expect(table.phase(of: 1) == .transfer(known: false), "a transfer is never dropped")
    }

    @Test(arguments: [
        ("192.168.1.7", "192.168.1.7"),
        ("::ffff:192.168.1.7", "192.168.1.7"),
        ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:bbbb:cccc:dddd:eeee", "2001:db8:1:2::/64"),
        ("2001:db8:1:3::1", "2001:db8:1:3::/64"),
        ("fe80::1%eth0", "fe80::1%eth0"),
    ])
    func sourcesGroupAHostsAddresses(address: String, source: String) {
        #expect(Admission.source(of: address) == source)
    }
}
