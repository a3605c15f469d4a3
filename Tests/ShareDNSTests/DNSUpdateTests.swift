import ShareDNS
import ShareDNSUpdate
import Testing

struct DNSUpdateTests {
    @Test func prerequisitesAndDeletionsUseTheClassesOfRFC2136() throws {
        let zone = try DNSName("office.example")
        let instance = try DNSName(label: "desk", in: DNSName("_share._tcp.office.example"))
        let host = try DNSName("share-0123.office.example")
        let text = DNSRecord.text(instance, [Array("v=1".utf8)], ttl: 60)
        let update = DNSUpdate(
            zone: zone, prerequisites: [.nameNotInUse(instance), .recordSetEquals([text])],
            changes: [.add(.address(host, [10, 0, 0, 7], ttl: 60)), .deleteRecordSet(host, .aaaa), .deleteName(instance), .delete(text)])
        let message = try DNSMessage(parsing: update.message(id: 9).wire)
        #expect(message.opcode == DNSMessage.updateOpcode)
        #expect(message.questions == [.init(name: zone, type: .soa)])
        // Name not in use: NONE ANY, no data. Record set equals: IN, TTL 0, the data.
        #expect(message.answers.map(\.recordClass) == [.none, .internet])
        #expect(message.answers[0].type == .any && message.answers[0].data == .empty)
        #expect(message.answers[1].ttl == 0 && message.answers[1].data == text.data)
        // Add: IN; delete an RRset: ANY with the type; delete a name: ANY ANY; delete one record: NONE.
        #expect(message.authority.map(\.recordClass) == [.internet, .any, .any, .none])
        #expect(message.authority.map(\.type) == [.a, .aaaa, .any, .txt])
        #expect(message.authority[3].data == text.data && message.authority[3].ttl == 0)
    }
}
