import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Wide-area DNS-SD between routed subnets (Tests/Hosts/lan.sh up-routed): `share receive
/// --domain` on one subnet publishes itself with signed DNS updates to the router's BIND (started
/// by the test, with the example configuration of docs/wide-area), and `share peers` and
/// `share send` on the other subnet, where multicast DNS never reaches, find it through plain DNS.
@Suite(.serialized, .enabled(if: SimulatedLAN.wideAreaShouldRun, SimulatedLAN.wideAreaSkipNote))
struct WideAreaTests {
    static let domain = "office.example"

    /// A copy of one of the lab's keys that only `user` may read, as `share receive` requires.
    func key(_ lan: SimulatedLAN, for user: LANUser, named name: String = "share-team") throws -> String {
        let path = user.home + "/\(name).key"
        let text = try String(contentsOfFile: try lan.namedDirectory() + "/\(name).key", encoding: .utf8)
        FileTree.writeText(path, text)
        chmod(path, 0o600)
        return path
    }

    /// Starts `share receive --domain office.example --json` and waits until it is in DNS.
    func startReceiver(
        _ lan: SimulatedLAN, on host: String, as user: LANUser, name: String, extra: [String] = [],
        published expected: String? = nil
    ) async throws -> (process: HostProcess, port: Int, fingerprint: String, published: [String: Any]) {
        let receiver = try lan.share(
            on: host, as: user,
            ["receive", "--name", name, "--accept", "all", "--json", "--port", "0", "--domain", Self.domain,
             "--dns-key", try key(lan, for: user)] + extra)
        let listening = try await receiver.waitForEvent("listening").object
        let published = try await receiver.waitForEvent("published") {
            $0["domain"] as? String == Self.domain && $0["name"] as? String == (expected ?? name)
        }
        return (receiver, listening["port"] as? Int ?? 0, listening["fingerprint"] as? String ?? "", published.object)
    }

    /// `share peers --json` on a host, parsed.
    func peers(_ lan: SimulatedLAN, on host: String, as user: LANUser, _ extra: [String] = []) async throws
        -> (peers: [[String: Any]], stderr: String, status: Int32)
    {
        let result = try await lan.runShare(on: host, as: user, ["peers", "--json"] + extra)
        let peers = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [[String: Any]]
        return (peers ?? [], result.stderr, result.status)
    }

    static func addresses(_ peer: [String: Any]) -> [String] {
        (peer["addresses"] as? [[String: Any]])?.compactMap { $0["address"] as? String } ?? []
    }

    @Test func aReceiverOnOneSubnetIsFoundAndReachedFromTheOtherOverIPv4() async throws {
        let lan = try SimulatedLAN(subnet: ["a"], subnet: ["b"], prefix: SimulatedLAN.wideAreaPrefix)
        defer { lan.down() }
        let dir = TemporaryDirectory("wan-ipv4")
        let alice = LANUser("alice", in: dir)
        let bob = LANUser("bob", in: dir)
        let (receiver, port, fingerprint, published) = try await startReceiver(lan, on: "a", as: alice, name: "desk")
        defer { receiver.terminate() }
        #expect(published["host"] as? String == "share-\(fingerprint.prefix(16)).\(Self.domain)")
        #expect(published["addresses"] as? [String] == [try lan.ipv4("a"), try lan.ipv6("a")])

        // b finds office.example by itself (its resolver searches it; the zone names itself as a
        // browse domain), although multicast DNS from a never reaches it.
        let (found, stderr, status) = try await peers(lan, on: "b", as: bob)
        #expect(status == 0, "\(stderr)")
        #expect(stderr.isEmpty)
        let desk = try #require(found.first { $0["name"] as? String == "desk" }, "\(found)")
        #expect(found.count == 1)
        #expect(desk["domains"] as? [String] == [Self.domain])
        #expect(desk["port"] as? Int == port)
        #expect(desk["fingerprintPrefix"] as? String == String(fingerprint.prefix(16)))
        #expect(Self.addresses(desk) == [try lan.ipv4("a"), try lan.ipv6("a")])
        #expect(desk["unconfirmed"] as? Bool == true)

        FileTree.writeText(dir.at("note.txt"), "across the router\n")
        let sent = try await lan.runShare(on: "b", as: bob, ["send", dir.at("note.txt"), "--to", "desk", "--json"])
        #expect(sent.status == 0, "\(sent.stderr)")
        let report = try #require(jsonObject(sent.stdout))
        #expect((report["peer"] as? [String: Any])?["address"] as? String == "\(try lan.ipv4("a")):\(port)")
        #expect(FileManager.default.contents(atPath: alice.downloads + "/note.txt") == Data("across the router\n".utf8))

        // The connection proved the key the entry advertises.
        let after = try await peers(lan, on: "b", as: bob)
        #expect(after.peers.first?["unconfirmed"] as? Bool == false)
        let table = try await lan.runShare(on: "b", as: bob, ["peers"])
        #expect(table.stdout.hasPrefix("NAME  DOMAIN          HOST"), "\(table.stdout)")
        #expect(table.stdout.contains("desk  \(Self.domain)  share-\(fingerprint.prefix(16)).\(Self.domain)  \(port)"))
    }

    @Test func overIPv6Only() async throws {
        let lan = try SimulatedLAN(subnet: ["a"], subnet: ["b"], prefix: SimulatedLAN.wideAreaPrefix)
        defer { lan.down() }
        let dir = TemporaryDirectory("wan-ipv6")
        let alice = LANUser("alice", in: dir)
        let bob = LANUser("bob", in: dir)
        // Both hosts lose their IPv4 address and ask the DNS server over IPv6.
        for (host, net) in [("a", 1), ("b", 2)] {
            let address = try lan.ipv4(host)
            let removed = try await lan.runTool(on: host, "/usr/sbin/ip", ["addr", "del", "\(address)/24", "dev", "eth0"])
            #expect(removed.status == 0, "\(removed.output) (subnet \(net))")
            try lan.setResolver(host, "nameserver fd00:232:1::1\nsearch office.example\noptions timeout:1 attempts:2\n")
        }
        let (receiver, port, _, published) = try await startReceiver(lan, on: "a", as: alice, name: "desk")
        defer { receiver.terminate() }
        #expect(published["addresses"] as? [String] == [try lan.ipv6("a")])

        let (found, stderr, _) = try await peers(lan, on: "b", as: bob)
        let desk = try #require(found.first, "\(stderr)")
        #expect(Self.addresses(desk) == [try lan.ipv6("a")])
        FileTree.writeText(dir.at("v6.txt"), "over IPv6\n")
        let sent = try await lan.runShare(on: "b", as: bob, ["send", dir.at("v6.txt"), "--to", "desk", "--json"])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect((jsonObject(sent.stdout)?["peer"] as? [String: Any])?["address"] as? String == "[\(try lan.ipv6("a"))]:\(port)")
        #expect(FileManager.default.fileExists(atPath: alice.downloads + "/v6.txt"))
    }

    @Test func aCleanStopWithdrawsTheEntryAndTheNextStartReclaimsACrashedOne() async throws {
        let lan = try SimulatedLAN(subnet: ["a"], subnet: ["b"], prefix: SimulatedLAN.wideAreaPrefix)
        defer { lan.down() }
        let dir = TemporaryDirectory("wan-withdraw")
        let alice = LANUser("alice", in: dir)
        let bob = LANUser("bob", in: dir)

        let (first, _, _, _) = try await startReceiver(lan, on: "a", as: alice, name: "desk")
        #expect(try await peers(lan, on: "b", as: bob).peers.count == 1)
        first.signal(SIGTERM)
        #expect(await first.exitStatus(within: .seconds(10)) == 128 + SIGTERM)
        #expect(first.lines.contains { jsonObject($0)?["event"] as? String == "withdrawn" }, "\(first.transcript)")
        let empty = try await lan.runShare(on: "b", as: bob, ["peers"])
        #expect(empty.stdout == "No receivers found nearby.")

        // A receiver that is killed leaves its entry behind: it is listed, and stays unconfirmed.
        let (crashed, crashedPort, _, _) = try await startReceiver(lan, on: "a", as: alice, name: "desk")
        crashed.signal(SIGKILL)
        _ = await crashed.exitStatus(within: .seconds(5))
        let stale = try await peers(lan, on: "b", as: bob)
        #expect(stale.peers.map { $0["port"] as? Int } == [crashedPort])
        #expect(stale.peers.first?["unconfirmed"] as? Bool == true)
        FileTree.writeText(dir.at("x.txt"), "x")
        let failed = try await lan.runShare(on: "b", as: bob, ["send", dir.at("x.txt"), "--to", "desk"])
        #expect(failed.status == 1)

        // The next start has the same fingerprint: it takes the name back instead of "desk #2".
        let (again, port, _, published) = try await startReceiver(lan, on: "a", as: alice, name: "desk")
        defer { again.terminate() }
        #expect(published["reclaimed"] as? Bool == true)
        #expect(!again.lines.contains { jsonObject($0)?["event"] as? String == "renamed" })
        let now = try await peers(lan, on: "b", as: bob)
        #expect(now.peers.map { $0["name"] as? String } == ["desk"])
        #expect(now.peers.map { $0["port"] as? Int } == [port])
    }

    @Test func aNameHeldByAnotherKeyGetsAnAlternativeName() async throws {
        let lan = try SimulatedLAN(subnet: ["a"], subnet: ["b"], prefix: SimulatedLAN.wideAreaPrefix)
        defer { lan.down() }
        let dir = TemporaryDirectory("wan-conflict")
        let alice = LANUser("alice", in: dir)
        let bob = LANUser("bob", in: dir)
        // Bob's machine holds "desk", signed with another key (and sent to the server given, over IPv6).
        let other = try lan.share(
            on: "b", as: bob,
            ["receive", "--name", "desk", "--accept", "all", "--json", "--port", "0", "--domain", Self.domain, "--dns-key",
             try key(lan, for: bob, named: "lab-other"), "--dns-server", "fd00:232:1::1"])
        defer { other.terminate() }
        try await other.waitForEvent("published") { $0["domain"] as? String == Self.domain }

        let (receiver, port, _, _) = try await startReceiver(lan, on: "a", as: alice, name: "desk", published: "desk #2")
        defer { receiver.terminate() }
        let renamed = try await receiver.waitForEvent("renamed").object
        #expect(renamed["from"] as? String == "desk")
        #expect(renamed["to"] as? String == "desk #2")
        #expect(renamed["domain"] as? String == Self.domain)

        // On b: its own receiver (both on the local network and in the domain) and Alice's.
        let (found, _, _) = try await peers(lan, on: "b", as: bob)
        let names = found.compactMap { $0["name"] as? String }.sorted()
        #expect(names == ["desk", "desk #2"])
        let own = try #require(found.first { $0["name"] as? String == "desk" })
        #expect(own["domains"] as? [String] == ["local", Self.domain])
        #expect(own["self"] as? Bool == true)
        FileTree.writeText(dir.at("y.txt"), "y")
        let sent = try await lan.runShare(on: "b", as: bob, ["send", dir.at("y.txt"), "--to", "desk #2", "--json"])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect((jsonObject(sent.stdout)?["peer"] as? [String: Any])?["address"] as? String == "\(try lan.ipv4("a")):\(port)")
    }

    @Test func perHostKeysKeepEachMachineToItsOwnNames() async throws {
        let lan = try SimulatedLAN(subnet: ["a"], subnet: ["b"], prefix: SimulatedLAN.wideAreaPrefix)
        defer { lan.down() }
        let dir = TemporaryDirectory("wan-per-host")
        let alice = LANUser("alice", in: dir)
        let bob = LANUser("bob", in: dir)
        // The per-host policy of docs/WIDE-AREA.md: each key its own instance and host names.
        let named = try lan.namedDirectory()
        var rules: [String] = []
        for (user, host, keyName, instance) in [(alice, "a", "desk.office.example", "desk"), (bob, "b", "laptop.office.example", "laptop")] {
            let identity = try await lan.runShare(on: host, as: user, ["identity", "--json"])
            let fingerprint = try #require(jsonObject(identity.stdout)?["fingerprint"] as? String)
            let key = try await lan.runTool(on: host, "/usr/sbin/tsig-keygen", ["-a", "hmac-sha256", keyName])
            #expect(key.status == 0, "\(key.output)")
            FileTree.writeText(named + "/\(keyName).key", key.output + "\n")
            FileTree.writeText(user.home + "/\(instance).key", key.output + "\n")
            chmod(user.home + "/\(instance).key", 0o600)
            rules.append("grant \(keyName). name \(instance)._share._tcp.office.example. SRV TXT;")
            rules.append("grant \(keyName). name share-\(fingerprint.prefix(16)).office.example. A AAAA;")
        }
        rules.append("grant * name _share._tcp.office.example. PTR;")
        var config = try String(contentsOfFile: named + "/named.conf", encoding: .utf8)
        let policy = try #require(config.range(of: #"update-policy \{[^}]*\};"#, options: .regularExpression))
        config.replaceSubrange(policy, with: "update-policy {\n        " + rules.joined(separator: "\n        ") + "\n    };")
        config += "include \"\(named)/desk.office.example.key\";\ninclude \"\(named)/laptop.office.example.key\";\n"
        FileTree.writeText(named + "/named.conf", config)
        try lan.restartNamed()

        let desk = try lan.share(
            on: "a", as: alice,
            ["receive", "--name", "desk", "--accept", "all", "--json", "--port", "0", "--domain", Self.domain, "--dns-key",
             alice.home + "/desk.key"])
        defer { desk.terminate() }
        try await desk.waitForEvent("published") { $0["domain"] as? String == Self.domain && $0["name"] as? String == "desk" }

        // Bob's key may not write desk's names: refused, not renamed (the policy reserves names).
        let taken = try lan.share(
            on: "b", as: bob,
            ["receive", "--name", "desk", "--json", "--port", "0", "--domain", Self.domain, "--dns-key", bob.home + "/laptop.key"])
        let refused = try await taken.waitForEvent("not-discoverable") { $0["domain"] as? String == Self.domain }.object
        #expect((refused["reason"] as? String)?.contains("refused the update (REFUSED)") == true, "\(refused)")
        #expect(!taken.lines.contains { jsonObject($0)?["event"] as? String == "renamed" })
        taken.signal(SIGTERM)
        _ = await taken.exitStatus(within: .seconds(10))
        let laptop = try lan.share(
            on: "b", as: bob,
            ["receive", "--name", "laptop", "--accept", "all", "--json", "--port", "0", "--domain", Self.domain, "--dns-key",
             bob.home + "/laptop.key"])
        defer { laptop.terminate() }
        try await laptop.waitForEvent("published") { $0["domain"] as? String == Self.domain && $0["name"] as? String == "laptop" }
        let listed = try await peers(lan, on: "b", as: bob)
        #expect(listed.peers.compactMap { $0["name"] as? String } == ["desk", "laptop"])

        desk.signal(SIGTERM)
        #expect(await desk.exitStatus(within: .seconds(10)) == 128 + SIGTERM)
        #expect(desk.lines.contains { jsonObject($0)?["event"] as? String == "withdrawn" }, "\(desk.transcript)")
        #expect(try await peers(lan, on: "b", as: bob).peers.compactMap { $0["name"] as? String } == ["laptop"])
    }

    @Test func aWrongMissingOrExposedKeyIsAClearError() async throws {
        let lan = try SimulatedLAN(subnet: ["a"], subnet: ["b"], prefix: SimulatedLAN.wideAreaPrefix)
        defer { lan.down() }
        let dir = TemporaryDirectory("wan-key")
        let alice = LANUser("alice", in: dir)
        let good = try key(lan, for: alice)

        // Another secret under the key's name: the server does not accept the signature; the
        // receiver goes on, visible on the local network only.
        let wrong = alice.home + "/wrong.key"
        let text = try String(contentsOfFile: good, encoding: .utf8)
        let secret = try #require(text.range(of: #"secret "[^"]*""#, options: .regularExpression))
        FileTree.writeText(wrong, text.replacingCharacters(in: secret, with: "secret \"\(String(repeating: "A", count: 43))=\""))
        chmod(wrong, 0o600)
        let receiver = try lan.share(
            on: "a", as: alice,
            ["receive", "--name", "desk", "--json", "--port", "0", "--domain", Self.domain, "--dns-key", wrong])
        defer { receiver.terminate() }
        let refused = try await receiver.waitForEvent("not-discoverable") { $0["domain"] as? String == Self.domain }.object
        #expect((refused["reason"] as? String)?.contains("did not accept the key 'share-team'") == true, "\(refused)")
        #expect(refused["retrying"] as? Bool == false)
        try await receiver.waitForEvent("published") { $0["domain"] == nil }
        #expect(try await peers(lan, on: "b", as: LANUser("bob", in: dir)).peers.isEmpty)

        let missing = try await lan.runShare(on: "a", as: alice, ["receive", "--port", "0", "--domain", Self.domain])
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("Error: publishing in office.example needs the TSIG key"), "\(missing.stderr)")

        chmod(good, 0o640)
        let exposed = try await lan.runShare(on: "a", as: alice, ["receive", "--port", "0", "--domain", Self.domain, "--dns-key", good])
        #expect(exposed.status == 1)
        #expect(exposed.stderr.contains("can be read by others (mode 640)"), "\(exposed.stderr)")
        #expect(exposed.stderr.contains("chmod 600"))

        let usage = try await lan.runShare(on: "a", as: alice, ["receive", "--dns-key", good])
        #expect(usage.status == 64)
        #expect(usage.stderr.hasPrefix("Error: --dns-key and --dns-server need --domain"))
    }

    @Test func anEmptyDomainIsNoPeersAndAFailingServerOnlyAWarning() async throws {
        let lan = try SimulatedLAN(subnet: ["a"], subnet: ["b", "d"], prefix: SimulatedLAN.wideAreaPrefix)
        defer { lan.down() }
        let dir = TemporaryDirectory("wan-empty")
        let bob = LANUser("bob", in: dir)
        let (receiver, _, _, _) = try await startReceiver(lan, on: "a", as: LANUser("alice", in: dir), name: "desk")
        defer { receiver.terminate() }

        let empty = try await peers(lan, on: "b", as: bob, ["--domain", "campus.example"])
        #expect(empty.status == 0)
        #expect(empty.stderr.isEmpty, "an empty domain is not a problem: \(empty.stderr)")
        #expect(empty.peers.compactMap { $0["name"] as? String } == ["desk"])

        // A domain the server refuses: a warning for it, the others are listed.
        let refused = try await peers(lan, on: "b", as: bob, ["--domain", "nowhere.example"])
        #expect(refused.status == 0)
        #expect(refused.peers.compactMap { $0["name"] as? String } == ["desk"])
        #expect(refused.stderr.hasPrefix("Warning: nowhere.example: the DNS server 10.232.1.1 refused"), "\(refused.stderr)")

        // A dead DNS server: the local network's receiver is still listed, with a warning.
        let local = try lan.share(on: "d", as: LANUser("dave", in: dir), ["receive", "--name", "laptop", "--json", "--port", "0"])
        defer { local.terminate() }
        try await local.waitForEvent("published")
        try lan.setResolver("b", "nameserver 10.232.9.9\nsearch office.example\noptions timeout:1 attempts:1\n")
        let started = ContinuousClock.now
        let dead = try await peers(lan, on: "b", as: bob, ["--domain", Self.domain])
        #expect(dead.status == 0)
        #expect(ContinuousClock.now - started < .seconds(8))
        #expect(dead.peers.compactMap { $0["name"] as? String } == ["laptop"])
        #expect(dead.stderr.contains("Warning: office.example: no answer from the DNS server 10.232.9.9 within 1 s"), "\(dead.stderr)")
    }

    @Test func moreThanThirtyPeersAreAllListed() async throws {
        let lan = try SimulatedLAN(subnet: ["a"], subnet: ["b"], prefix: SimulatedLAN.wideAreaPrefix)
        defer { lan.down() }
        let dir = TemporaryDirectory("wan-many")
        let alice = LANUser("alice", in: dir)
        // 35 entries: their PTR answer alone is far over 512 bytes, so it can only come over TCP.
        var script = "server 10.232.1.1\nzone office.example\n"
        for index in 1...35 {
            let name = String(format: "host-%02d", index)
            let fingerprint = String(format: "%032x", index)
            script += "update add _share._tcp.office.example. 60 IN PTR \(name)._share._tcp.office.example.\n"
            script += "update add \(name)._share._tcp.office.example. 60 IN SRV 0 0 \(40000 + index) \(name).office.example.\n"
            script += "update add \(name)._share._tcp.office.example. 60 IN TXT \"v=1\" \"fp=\(fingerprint)\"\n"
            script += "update add \(name).office.example. 60 IN A 10.232.1.\(100 + index)\n"
        }
        script += "send\n"
        FileTree.writeText(dir.at("update.txt"), script)
        let update = try await lan.runTool(on: "a", "/usr/bin/nsupdate", ["-k", try key(lan, for: alice), dir.at("update.txt")])
        #expect(update.status == 0, "\(update.output)")

        let (found, stderr, _) = try await peers(lan, on: "b", as: LANUser("bob", in: dir))
        #expect(found.count == 35, "\(stderr)")
        #expect(found.compactMap { $0["name"] as? String } == (1...35).map { String(format: "host-%02d", $0) })
        #expect(found.allSatisfy { Self.addresses($0).count == 1 })
    }

    @Test func aReceiverSeenOnTheLocalNetworkAndInTheDomainIsListedOnce() async throws {
        let lan = try SimulatedLAN(subnet: ["a", "c"], subnet: ["b"], prefix: SimulatedLAN.wideAreaPrefix)
        defer { lan.down() }
        let dir = TemporaryDirectory("wan-merge")
        let (receiver, port, _, _) = try await startReceiver(lan, on: "a", as: LANUser("alice", in: dir), name: "desk")
        defer { receiver.terminate() }
        // c searches no domain: it finds office.example through its subnet's reverse zone (RFC 6763 §11).
        try lan.setResolver("c", "nameserver 10.232.1.1\noptions timeout:1 attempts:2\n")
        let (found, stderr, _) = try await peers(lan, on: "c", as: LANUser("carol", in: dir))
        #expect(found.count == 1, "\(found) \(stderr)")
        let desk = try #require(found.first)
        #expect(desk["domains"] as? [String] == ["local", Self.domain])
        #expect(desk["port"] as? Int == port)
        #expect(desk["host"] as? String == "a.local")
        #expect(desk["unconfirmed"] as? Bool == false)
        let addresses = Self.addresses(desk)
        #expect(addresses.first == (try lan.ipv4("a")))
        #expect(addresses.contains(try lan.ipv6("a")))
        #expect(Set(addresses).count == addresses.count, "every address once: \(addresses)")
    }

    @Test func watchShowsAppearancesAndDisappearancesAndAddressChanges() async throws {
        let lan = try SimulatedLAN(subnet: ["a"], subnet: ["b"], prefix: SimulatedLAN.wideAreaPrefix)
        defer { lan.down() }
        let dir = TemporaryDirectory("wan-watch")
        let alice = LANUser("alice", in: dir)
        let bob = LANUser("bob", in: dir)
        for user in [alice, bob] {
            FileTree.writeText(
                user.home + "/.config/share/settings.json", #"{"wideArea": {"watchSeconds": 0.5, "addressCheckSeconds": 0.5}}"#)
        }
        let watcher = try lan.share(on: "b", as: bob, ["peers", "--watch", "--json"])
        defer { watcher.terminate() }
        try await watcher.waitForEvent("all-for-now")

        let (receiver, _, _, _) = try await startReceiver(lan, on: "a", as: alice, name: "desk")
        let appeared = try await watcher.waitForEvent("appeared") { ($0["peer"] as? [String: Any])?["name"] as? String == "desk" }
        #expect(((appeared.object["peer"] as? [String: Any])?["domains"] as? [String]) == [Self.domain])

        // A new address on a reaches DNS, and the watcher.
        let added = try await lan.runTool(on: "a", "/usr/sbin/ip", ["addr", "add", "10.232.1.99/24", "dev", "eth0"])
        #expect(added.status == 0, "\(added.output)")
        let updated = try await receiver.waitForEvent("updated") { $0["domain"] as? String == Self.domain }.object
        #expect((updated["addresses"] as? [String])?.contains("10.232.1.99") == true)
        try await watcher.waitForEvent("updated", after: appeared.index) { event in
            Self.addresses((event["peer"] as? [String: Any]) ?? [:]).contains("10.232.1.99")
        }

        receiver.signal(SIGTERM)
        #expect(await receiver.exitStatus(within: .seconds(10)) == 128 + SIGTERM)
        try await watcher.waitForEvent("disappeared", after: appeared.index) { $0["name"] as? String == "desk" }
        watcher.signal(SIGINT)
        #expect(await watcher.exitStatus(within: .seconds(5)) == 128 + SIGINT)
    }
}

extension SimulatedLAN {
    /// The namespace prefix of this suite's routed LANs.
    static let wideAreaPrefix = "shwan"

    /// Whether the suite runs: when the machine can, or when required (and then fails).
    static var wideAreaShouldRun: Bool { isRequired || (routedMissingCapabilities.isEmpty && share != nil) }

    static var wideAreaSkipNote: Comment {
        Comment(rawValue: share == nil ? "build the package first (share)" : routedSkipReason)
    }

    /// Runs a program on a host to the end; stdout and stderr together.
    func runTool(on host: String, _ executable: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let process = try run(on: host, executable, arguments)
        guard let status = await process.exitStatus(within: .seconds(30)) else {
            process.signal(SIGKILL)
            throw HarnessError(description: "\(executable) on \(host) did not finish:\n\(process.transcript)")
        }
        try await Task.sleep(for: .milliseconds(50))
        return (status, process.lines.joined(separator: "\n"))
    }
}
