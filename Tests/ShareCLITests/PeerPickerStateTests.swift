import ShareDiscovery
import ShareKit
import ShareTestSupport
import Testing

@testable import ShareCLI

/// The peer picker's rules, without a terminal: keys, filtering, choosing, what is drawn.
@Suite struct PeerPickerStateTests {
    static func peer(
        _ name: String, fingerprint: String? = String(repeating: "ab", count: 16), own: Bool = false,
        trust: TrustStore = TrustStore()
    ) -> NearbyPeer {
        var txt = ["v": "2"]
        if let fingerprint { txt["fp"] = fingerprint }
        let service = DiscoveredService(
            name: name, type: "_share._tcp", domain: "local", host: name + ".local", port: 47321,
            addresses: [
                ServiceAddress(ip: "10.0.0.\(name.count)", family: .ipv4, interfaceName: "eth0", interfaceIndex: 2)
            ],
            txt: txt, isLocal: own)
        return NearbyPeer(
            service: service, trust: trust, ownFingerprintPrefix: own ? fingerprint : nil,
            networks: InterfaceNetworks.fixed([(2, "10.0.0.7", 24, false)]))
    }

    @Test func keysAreDecodedFromWhatTheTerminalSends() {
        #expect(TerminalKey.decode(Array("\u{1B}[A\u{1B}[B\u{1B}OA".utf8)) == [.up, .down, .up])
        #expect(TerminalKey.decode([0x1B]) == [.escape])
        #expect(
            TerminalKey.decode([0x03, 0x0D, 0x7F, 0x20, 0x15]) == [.interrupt, .enter, .backspace, .space, .clearLine])
        #expect(TerminalKey.decode(Array("dé".utf8)) == [.character("d"), .character("é")])
        #expect(TerminalKey.decode(Array("\u{1B}[5~x".utf8)) == [.other, .character("x")], "page up is ignored")
    }

    @Test func enterSendsToTheRowUnderTheCursorOrToTheChosenOnes() {
        var state = PeerPickerState()
        state.update([Self.peer("laptop"), Self.peer("Desk"), Self.peer("mine", own: true)])
        #expect(
            state.visible.map(\.name) == ["Desk", "laptop"], "sorted in any case; this machine's own receiver left out")
        #expect(state.handle(.down) == .picking)
        #expect(state.handle(.down) == .picking, "the cursor stops at the last row")
        #expect(state.handle(.enter) == .chosen([Self.peer("laptop")]))

        var several = PeerPickerState()
        several.update([Self.peer("laptop"), Self.peer("Desk"), Self.peer("phone")])
        _ = several.handle(.space)
        _ = several.handle(.down)
        _ = several.handle(.down)
        _ = several.handle(.space)
        #expect(several.render(searching: false).contains("  2 chosen"))
        #expect(several.handle(.enter) == .chosen([Self.peer("Desk"), Self.peer("phone")]))
    }

    @Test func typingFiltersAndTheCursorFollows() {
        var state = PeerPickerState()
        state.update([Self.peer("desk"), Self.peer("desktop"), Self.peer("laptop")])
        for character in "TOP" { _ = state.handle(.character(character)) }
        #expect(state.visible.map(\.name) == ["desktop", "laptop"])
        _ = state.handle(.down)
        _ = state.handle(.character("x"))
        #expect(state.visible.isEmpty)
        #expect(state.render(searching: false).contains("  No receiver matches \"TOPx\"."))
        #expect(state.handle(.enter) == .picking, "nothing to send to")
        _ = state.handle(.backspace)
        #expect(state.cursor == 1, "the filter gave laptop back, still under the cursor")
        _ = state.handle(.clearLine)
        #expect(state.visible.count == 3)
        // A receiver that appears while the user picks leaves the cursor on the same peer.
        state.update([Self.peer("desk"), Self.peer("desktop"), Self.peer("laptop"), Self.peer("attic")])
        #expect(state.visible[state.cursor].name == "laptop")
    }

    @Test func aPeerWithoutAFingerprintCannotBeChosen() {
        var state = PeerPickerState()
        state.update([Self.peer("odd", fingerprint: nil)])
        _ = state.handle(.space)
        #expect(state.chosen.isEmpty)
        #expect(state.handle(.enter) == .picking)
        #expect(state.render(searching: false).last == "  \"odd\" cannot be chosen: it advertises no valid fingerprint")
        #expect(state.render(searching: false).contains { $0.hasPrefix("> [ ] odd") && $0.hasSuffix("(cannot be sent to)") })
    }

    @Test func escapeCancelsAndCtrlCInterrupts() {
        var state = PeerPickerState()
        state.update([Self.peer("desk")])
        var other = state
        #expect(state.handle(.escape) == .cancelled)
        #expect(other.handle(.interrupt) == .interrupted)
    }

    @Test func theScreenShowsRowsCursorAndChoices() {
        var state = PeerPickerState()
        #expect(state.render(searching: true).last == "  Looking for receivers nearby...")
        state.update([Self.peer("desk"), Self.peer("laptop")])
        _ = state.handle(.down)
        _ = state.handle(.space)
        let lines = state.render(searching: false)
        #expect(lines[1] == "Filter: ")
        #expect(lines[2] == "  [ ] desk    10.0.0.4  ABAB ABAB")
        #expect(lines[3] == "> [x] laptop  10.0.0.6  ABAB ABAB")
    }

    /// Two machines verified as "vm" (key 7a…) and "vm #2" (key b2…).
    static let verifiedVMs: TrustStore = {
        let dir = TemporaryDirectory("picker-trust")
        FileTree.writeText(
            dir.at("trust.json"),
            #"{"blocked":[],"peers":["#
                + [("7a", "vm"), ("b2", "vm #2")].map { key, name in
                    #"{"fingerprint":"\#(String(repeating: key, count: 32))","name":"\#(name)","firstSeen":"2026-01-01T00:00:00Z","verification":"code"}"#
                }.joined(separator: ",") + "]}")
        return (try? TrustStore.load(from: dir.path)) ?? TrustStore()
    }()

    @Test func aRowThatAdvertisesAVerifiedKeyOnlyClaimsIt() {
        var state = PeerPickerState()
        state.update([Self.peer("vm", fingerprint: String(repeating: "b2", count: 16), trust: Self.verifiedVMs)])
        let row = state.render(searching: false)[2]
        #expect(row == "> [ ] vm  10.0.0.2  B2B2 B2B2  claims to be your verified \"vm #2\"", "\(row)")
        #expect(!row.contains(" verified as"))
    }

    @Test func aChosenRowIsAKeyAndStopsBeingChosenWhenTheNamesSwap() {
        let a = String(repeating: "7a", count: 16)
        let b = String(repeating: "b2", count: 16)
        var state = PeerPickerState()
        state.update([
            Self.peer("vm", fingerprint: a, trust: Self.verifiedVMs), Self.peer("vm #2", fingerprint: b, trust: Self.verifiedVMs),
        ])
        _ = state.handle(.space)
        #expect(state.render(searching: false).contains("  1 chosen"))
        // The machines restart and swap names while the list is shown.
        let swapped = [
            Self.peer("vm", fingerprint: b, trust: Self.verifiedVMs), Self.peer("vm #2", fingerprint: a, trust: Self.verifiedVMs),
        ]
        state.update(swapped)
        #expect(state.chosen.isEmpty, "the row chosen was the key 7a…, which no row called vm has now")
        // Enter sends to the row under the cursor, as it is now: its key, not the name's old one.
        #expect(state.handle(.enter) == .chosen([swapped[0]]))
    }

    @Test func localSendDevicesAreRowsAfterTheReceiversAndGoApartWhenChosen() {
        func device(_ alias: String, https: Bool = true) -> LocalSendPeer {
            LocalSendPeer(
                alias: alias, deviceType: "mobile", deviceModel: nil, fingerprint: String(repeating: "C4", count: 32),
                address: "10.0.0.9", port: 53317, https: https, version: "2.1", download: false)
        }
        var state = PeerPickerState()
        state.update([Self.peer("desk")])
        state.update(devices: [device("Ana's phone")])
        #expect(state.visible.map(\.name) == ["desk", "Ana's phone"], "share's receivers first")
        let screen = state.render(searching: false).joined(separator: "\n")
        #expect(screen.contains("Ana's phone  10.0.0.9  C4C4C4C4  LocalSend mobile, not verified"), "\(screen)")
        #expect(state.handle(.space) == .picking)
        #expect(state.handle(.down) == .picking)
        #expect(state.handle(.space) == .picking)
        #expect(state.handle(.enter) == .chosen([Self.peer("desk")], devices: [device("Ana's phone")]))

        var plain = PeerPickerState()
        plain.update(devices: [device("old tablet", https: false)])
        #expect(plain.handle(.enter) == .picking)
        #expect(plain.note == "\"old tablet\" cannot be chosen: it serves plain HTTP only")
    }
}
