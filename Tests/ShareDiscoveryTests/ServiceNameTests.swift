import ShareDiscovery
import Testing

@Suite("Service name and type validation")
struct ServiceNameTests {
    @Test("Ordinary device names are accepted", arguments: ["desk", "Kitchen laptop", "Bürorechner", "a", "desk #2"])
    func accepted(_ name: String) throws {
        try ServiceName.validate(name)
    }

    @Test("A name of exactly 63 bytes of UTF-8 is accepted, 64 is not")
    func lengthLimit() throws {
        try ServiceName.validate(String(repeating: "x", count: 63))
        #expect(throws: DiscoveryError.self) { try ServiceName.validate(String(repeating: "x", count: 64)) }
        // 32 two-byte characters are 64 bytes although only 32 characters.
        #expect(throws: DiscoveryError.self) { try ServiceName.validate(String(repeating: "é", count: 32)) }
    }

    @Test(
        "Empty names and control characters are refused",
        arguments: ["", "desk\n", "a\u{0}b", "\u{1b}[31mred", "x\u{7f}"])
    func refused(_ name: String) {
        #expect(throws: DiscoveryError.self) { try ServiceName.validate(name) }
    }

    @Test("The refusal message escapes control characters instead of printing them")
    func messageEscapes() {
        do {
            try ServiceName.validate("\u{1b}[2Jdesk")
            Issue.record("accepted a name with an escape sequence")
        } catch {
            #expect(!error.description.contains("\u{1b}"))
            #expect(error.description.contains("control characters"))
        }
    }

    @Test(
        "Service types",
        arguments: [
            ("_share._tcp", true), ("_http._tcp", true), ("_x._udp", true),
            ("share._tcp", false), ("_share._sctp", false), ("_share", false), ("_._tcp", false),
            ("_sh are._tcp", false),
            ("_-share._tcp", false), ("_averyveryverylongname._tcp", false),
        ])
    func types(_ type: String, _ valid: Bool) {
        let accepted = (try? ServiceType.validate(type)) != nil
        #expect(accepted == valid)
    }
}
