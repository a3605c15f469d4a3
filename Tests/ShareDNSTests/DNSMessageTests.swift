import ShareDNS
import Testing

struct DNSMessageTests {
    @Test func aQueryIsEncodedAsTheRFCSays() throws {
        let query = DNSMessage.query(try DNSName("_share._tcp.example"), .ptr, id: 0x1234)
        #expect(
            query.wire == [0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]
                + [6] + Array("_share".utf8) + [4] + Array("_tcp".utf8) + [7] + Array("example".utf8) + [0, 0, 12, 0, 1])
    }

    @Test func anAnswerWithCompressedNamesIsParsed() throws {
        // PTR answer for _share._tcp.example. -> desk._share._tcp.example., names compressed.
        var bytes: [UInt8] = [0x12, 0x34, 0x84, 0x00, 0, 1, 0, 1, 0, 0, 0, 1]
        bytes += [6] + Array("_share".utf8) + [4] + Array("_tcp".utf8) + [7] + Array("example".utf8) + [0, 0, 12, 0, 1]
        bytes += [0xC0, 12, 0, 12, 0, 1, 0, 0, 0, 60, 0, 7, 4] + Array("desk".utf8) + [0xC0, 12]
        // An A record for desk in the additional section.
        bytes += [0xC0, 49, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 10, 0, 0, 7]
        let message = try DNSMessage(parsing: bytes)
        #expect(message.isResponse)
        #expect(message.responseCode == .noError)
        let service = try DNSName("_share._tcp.example")
        #expect(message.answers(.ptr, for: service).map(\.data) == [.pointer(try DNSName("desk._share._tcp.example"))])
        #expect(message.additional.first?.data == .ipv4([10, 0, 0, 7]))
        #expect(message.additional.first?.name == (try DNSName("desk._share._tcp.example")))
    }

    @Test func recordsRoundTrip() throws {
        let owner = try DNSName(label: "desk", in: DNSName("_share._tcp.example"))
        let records: [DNSRecord] = [
            .service(owner, port: 47321, target: try DNSName("share-0123.example"), ttl: 60),
            .text(owner, [Array("v=1".utf8), Array("fp=ab".utf8)], ttl: 60),
            .address(try DNSName("share-0123.example"), [0xFD] + Array(repeating: 0, count: 14) + [7], ttl: 60),
        ]
        let message = DNSMessage(id: 7, isResponse: true, answers: records)
        #expect(try DNSMessage(parsing: message.wire) == message)
    }

    @Test func hostileBytesAreMalformedNotATrap() {
        let header: [UInt8] = [0, 1, 0x80, 0, 0, 0, 0, 1, 0, 0, 0, 0]
        for bytes: [UInt8] in [
            [0, 1, 0x80],  // a header cut short
            header + [0xC0, 12, 0, 12, 0, 1, 0, 0, 0, 60, 0, 2, 0xC0, 12],  // a pointer to itself
            header + [0xC0, 200],  // a pointer past the end
            header + [3, 97, 98],  // a label past the end
            header + [0, 0, 1, 0, 1, 0, 0, 0, 60, 0, 9, 1, 2, 3, 4],  // an A record with a wrong length
            header + [0x40, 0],  // an extended label type
        ] {
            #expect(throws: DNSMessageError.self) { try DNSMessage(parsing: bytes) }
        }
    }
}
