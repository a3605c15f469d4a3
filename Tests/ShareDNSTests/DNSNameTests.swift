import ShareDNS
import Testing

struct DNSNameTests {
    @Test func freeTextInstanceNamesStayOneLabel() throws {
        let parent = try DNSName("_share._tcp.office.example")
        let name = try DNSName(label: "Ann's Desk 2.0", in: parent)
        #expect(name.labels.count == 5)
        #expect(name.firstLabelText == "Ann's Desk 2.0")
        #expect(name.presentation == #"Ann's\032Desk\0322\.0._share._tcp.office.example"#)
        #expect(try DNSName(name.presentation) == name)
        #expect(name.parent == parent)
    }

    @Test func utf8IsEscapedAsBytesAndParsedBack() throws {
        let name = try DNSName(label: "Café", in: .root)
        #expect(name.presentation == #"Caf\195\169"#)
        #expect(try DNSName(#"Caf\195\169."#).firstLabelText == "Café")
        #expect(name.description == "Café")
    }

    @Test func comparisonIgnoresASCIICaseOnly() throws {
        #expect(try DNSName("Office.EXAMPLE.") == DNSName("office.example"))
        #expect(try DNSName(label: "É", in: .root) != DNSName(label: "é", in: .root))
        #expect(try DNSName("a.office.example").isSubdomain(of: DNSName("OFFICE.example")))
        #expect(try !DNSName("example").isSubdomain(of: DNSName("office.example")))
    }

    @Test func wireFormatAndLimits() throws {
        #expect(try DNSName("ab.c").wire == [2, 97, 98, 1, 99, 0])
        #expect(DNSName.root.wire == [0])
        #expect(throws: DNSNameError.emptyLabel) { try DNSName("a..b") }
        #expect(throws: DNSNameError.labelTooLong(64)) { try DNSName(label: String(repeating: "x", count: 64), in: .root) }
        #expect(throws: DNSNameError.badEscape) { try DNSName(#"a\25"#) }
        #expect(throws: DNSNameError.badEscape) { try DNSName(#"a\256"#) }
        let long = Array(repeating: String(repeating: "x", count: 63), count: 4).joined(separator: ".")
        #expect(throws: DNSNameError.nameTooLong(257)) { try DNSName(long) }
    }
}
