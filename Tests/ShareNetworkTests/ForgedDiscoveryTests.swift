import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Discovery data from a hostile responder on the LAN: a raw multicast DNS
/// responder on one simulated host announces what it likes; `share` on another host must not trust
/// it further than it deserves.
@Suite(.serialized, .enabled(if: SimulatedLAN.networkShouldRun, SimulatedLAN.networkSkipNote))
struct ForgedDiscoveryTests {
    static let responder: String = URL(fileURLWithPath: SimulatedLAN.script).deletingLastPathComponent()
        .appendingPathComponent("fake-responder.py").path
    static let fingerprint = String(repeating: "ab", count: 16)

    /// Starts the fake responder on `host` (its avahi-daemon stopped first) and waits until it
    /// announced.
    func announce(_ lan: SimulatedLAN, on host: String, _ arguments: [String]) async throws -> HostProcess {
        let source = try lan.ipv4(host)
        let process = try lan.run(on: host, "/usr/bin/python3", [Self.responder, "--from", source] + arguments, label: "fake responder")
        _ = try await process.waitForLine("announcing", within: .seconds(10)) { $0.contains("announcing") }
        return process
    }

    func peers(_ lan: SimulatedLAN, on host: String, as user: LANUser, wait: Int = 5) async throws -> [[String: Any]] {
        let result = try await lan.runShare(on: host, as: user, ["peers", "--json", "--wait", String(wait)])
        return (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [[String: Any]] ?? []
    }

    @Test func servicesThatAreNotCompatibleReceiversAreListedAsSuchAndNeverSentTo() async throws {
        let lan = try SimulatedLAN(hosts: ["a", "b"], prefix: SimulatedLAN.networkPrefix)
        defer { lan.down() }
        try lan.stopAvahi("a")
        let dir = TemporaryDirectory("net-forged-txt")
        let bob = LANUser("bob", in: dir)
        let address = try lan.ipv4("a")
        var responders: [HostProcess] = []
        defer { for responder in responders { responder.terminate() } }
        for (name, txt, port) in [
            ("nov", ["fp=\(Self.fingerprint)"], "47321"), ("old", ["v=1", "fp=\(Self.fingerprint)"], "47321"),
            ("nofp", ["v=2"], "47321"), ("zero", ["v=2", "fp=\(Self.fingerprint)"], "0"),
        ] {
            responders.append(
                try await announce(
                    lan, on: "a", ["--name", name, "--host", name, "--port", port, "--address", address] + txt.flatMap { ["--txt", $0] }))
        }
        let listed = try await peers(lan, on: "b", as: bob)
        func reason(_ name: String) -> String? { listed.first { $0["name"] as? String == name }?["incompatible"] as? String }
        #expect(reason("nov") == "it advertises no protocol version", "\(listed)")
        #expect(reason("old") == "it speaks share protocol 1 and this share speaks 2: update share there")
        #expect(reason("nofp") == "it advertises no valid fingerprint")
        #expect(reason("zero") == "it advertises port 0")
        FileTree.writeText(dir.at("x.txt"), "x")
        let sent = try await lan.runShare(on: "b", as: bob, ["send", dir.at("x.txt"), "--to", "old"])
        #expect(sent.status == 1)
        #expect(sent.stderr.contains("is not a receiver this share can send to: it speaks share protocol 1"))
    }

    @Test func aResponderCannotSendASenderToItsOwnLoopback() async throws {
        let lan = try SimulatedLAN(hosts: ["a", "b"], prefix: SimulatedLAN.networkPrefix)
        defer { lan.down() }
        try lan.stopAvahi("a")
        let dir = TemporaryDirectory("net-forged-loopback")
        let bob = LANUser("bob", in: dir)
        // Something listens on b's own loopback, where the forged record points.
        let trap = try lan.run(on: "b", "/usr/bin/socat", ["-u", "TCP-LISTEN:47999,bind=127.0.0.1,reuseaddr", "OPEN:\(dir.at("trapped")),creat"], label: "loopback trap")
        defer { trap.terminate() }
        let responder = try await announce(
            lan, on: "a",
            ["--name", "desk", "--host", "desk", "--port", "47999", "--address", "127.0.0.1", "--txt", "v=2", "--txt", "fp=\(Self.fingerprint)"])
        defer { responder.terminate() }
        let listed = try await peers(lan, on: "b", as: bob)
        let desk = try #require(listed.first { $0["name"] as? String == "desk" }, "\(listed)")
        #expect((desk["addresses"] as? [Any])?.isEmpty == true)
        let ignored = (desk["ignoredAddresses"] as? [[String: Any]])?.first
        #expect(ignored?["address"] as? String == "127.0.0.1")
        FileTree.writeText(dir.at("secret.txt"), "for desk")
        let sent = try await lan.runShare(on: "b", as: bob, ["send", dir.at("secret.txt"), "--to", "desk"])
        #expect(sent.status == 1)
        #expect(sent.stderr.contains("advertises no address share will use (127.0.0.1: a responder on the network named this machine's own loopback)"))
        try await Task.sleep(for: .milliseconds(300))
        #expect(!FileManager.default.fileExists(atPath: dir.at("trapped")), "nothing connected to the loopback")
    }

    @Test func aServiceThatAdvertisesAVerifiedKeyIsListedAsAClaimNeverAsVerified() async throws {
        let lan = try SimulatedLAN(hosts: ["a", "b"], prefix: SimulatedLAN.networkPrefix)
        defer { lan.down() }
        try lan.stopAvahi("a")
        let dir = TemporaryDirectory("net-forged-claim")
        let bob = LANUser("bob", in: dir)
        // bob verified "desk", whose key begins with the prefix the responder copies into its TXT.
        let deskKey = Self.fingerprint + String(repeating: "cd", count: 16)
        FileTree.makeFolder(bob.home + "/.config/share")
        FileTree.writeText(
            bob.home + "/.config/share/trust.json",
            #"{"blocked":[],"peers":[{"fingerprint":"\#(deskKey)","name":"desk","firstSeen":"2026-01-01T00:00:00Z","verification":"code"}]}"#)
        let address = try lan.ipv4("a")
        let responder = try await announce(
            lan, on: "a",
            ["--name", "desk", "--host", "desk", "--port", "47321", "--address", address, "--txt", "v=2", "--txt", "fp=\(Self.fingerprint)"])
        defer { responder.terminate() }

        let listed = try await peers(lan, on: "b", as: bob)
        let desk = try #require(listed.first { $0["name"] as? String == "desk" }, "\(listed)")
        #expect(desk["verified"] as? Bool == false, "no connection proved the key: \(desk)")
        #expect(desk["verifiedAs"] == nil)
        #expect(desk["claimsKeyOf"] as? String == deskKey)
        #expect(desk["claimedVerifiedName"] as? String == "desk")
        let table = try await lan.runShare(on: "b", as: bob, ["peers", "--wait", "5"])
        let row = try #require(table.stdout.split(separator: "\n").first { $0.hasPrefix("desk ") }, "\(table.stdout)")
        #expect(row.hasSuffix("claims to be your verified \"desk\""), "\(row)")
        #expect(!row.contains("verified as") && !row.hasSuffix(" verified"))
    }

    @Test func aChosenRowThatClaimsAVerifiedKeyIsRefusedWhenAnotherKeyAnswers() async throws {
        let lan = try SimulatedLAN(hosts: ["a", "b", "c"], prefix: SimulatedLAN.networkPrefix)
        defer { lan.down() }
        try lan.stopAvahi("a")
        let dir = TemporaryDirectory("net-forged-row")
        let bob = LANUser("bob", in: dir)
        let carol = LANUser("carol", in: dir)
        let deskKey = Self.fingerprint + String(repeating: "cd", count: 16)
        FileTree.makeFolder(bob.home + "/.config/share")
        FileTree.writeText(
            bob.home + "/.config/share/trust.json",
            #"{"blocked":[],"peers":[{"fingerprint":"\#(deskKey)","name":"desk","firstSeen":"2026-01-01T00:00:00Z","verification":"code"}]}"#)
        // A real receiver on c, with its own key; the responder on a points a row "desk", which
        // claims the key bob verified as "desk", at it.
        let receiver = try lan.share(on: "c", as: carol, ["receive", "--name", "other", "--accept", "everyone", "--json", "--port", "0"])
        defer { receiver.terminate() }
        let port = try await receiver.waitForEvent("listening").object["port"] as? Int ?? 0
        try await receiver.waitForEvent("published")
        let responder = try await announce(
            lan, on: "a",
            ["--name", "desk", "--host", "desk", "--port", String(port), "--address", try lan.ipv4("c"),
             "--txt", "v=2", "--txt", "fp=\(Self.fingerprint)"])
        defer { responder.terminate() }
        FileTree.writeText(dir.at("secret.txt"), "for desk")

        let share = try #require(SimulatedLAN.share)
        let words = [SimulatedLAN.script, "run", "b", share, "send", dir.at("secret.txt")]
        var environment = SimulatedLAN.environment(prefix: SimulatedLAN.networkPrefix).merging(bob.environment) { $1 }
        environment["TERM"] = "xterm"
        let picker = PseudoTerminalProcess(command: words.map { "'\($0)'" }.joined(separator: " "), environment: environment)
        #expect(picker.waitForOutput(containing: "claims to be your verified \"desk\""), "\(picker.output)")
        #expect(picker.waitForOutput(containing: "other"), "\(picker.output)")
        picker.type("\r")  // the first row: "desk"
        #expect(picker.wait(timeout: .seconds(60)) == 1, "\(picker.output)")
        #expect(picker.output.contains("but the peer you verified as \"desk\" has the key \(deskKey.prefix(16))"), "\(picker.output)")
        #expect(!FileManager.default.fileExists(atPath: carol.downloads + "/secret.txt"))
    }

    @Test func aThousandServicesAreCappedAndFlappingIsCoalesced() async throws {
        let lan = try SimulatedLAN(hosts: ["a", "b"], prefix: SimulatedLAN.networkPrefix)
        defer { lan.down() }
        try lan.stopAvahi("a")
        let dir = TemporaryDirectory("net-forged-many")
        let bob = LANUser("bob", in: dir)
        let address = try lan.ipv4("a")
        let many = try await announce(
            lan, on: "a",
            ["--name", "svc", "--count", "1000", "--port", "47321", "--address", address, "--txt", "v=2", "--txt", "fp=\(Self.fingerprint)"])
        let listed = try await peers(lan, on: "b", as: bob, wait: 20)
        many.terminate()  // it says goodbye: the names leave the table a second later
        _ = await many.exitStatus(within: .seconds(10))
        #expect(listed.count == 256, "\(listed.count) services listed")
        // A fresh cache on b, so the 256 places of a new watcher are not full of the 1000 names.
        try lan.restartAvahi("b")

        // 20 services flapping every 50 ms, watched for 5 seconds.
        let watcher = try lan.share(on: "b", as: bob, ["peers", "--watch", "--json"])
        // The watcher browses before the flapping starts (it may take seconds to start on a busy machine).
        _ = try await watcher.waitForLine("all-for-now", within: .seconds(30)) { $0.contains("all-for-now") }
        let flapping = try await announce(
            lan, on: "a",
            ["--name", "flap", "--count", "20", "--flap", "0.05", "--for", "5", "--port", "47321", "--address", address,
             "--txt", "v=2", "--txt", "fp=\(Self.fingerprint)"])
        _ = await flapping.exitStatus(within: .seconds(15))
        try await Task.sleep(for: .seconds(3))
        watcher.signal(SIGINT)
        _ = await watcher.exitStatus(within: .seconds(10))
        let lines = watcher.lines.filter { $0.contains("flap-") }
        #expect(lines.count <= 80, "\(lines.count) lines for 20 flapping services in 5 s (was about 100 a second)")
        #expect(lines.contains { $0.contains("\"event\":\"flapping\"") || $0.contains("\"event\":\"appeared\"") }, "\(watcher.lines.suffix(5))")
    }
}
