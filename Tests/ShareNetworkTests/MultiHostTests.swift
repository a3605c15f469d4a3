import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `share receive`, `share peers` and `share send` between simulated LAN hosts, each a network
/// namespace with its own D-Bus and avahi-daemon: real mDNS, real TLS, the real binary.
@Suite(.serialized, .enabled(if: SimulatedLAN.networkShouldRun, SimulatedLAN.networkSkipNote))
struct MultiHostTests {
    /// Starts `share receive --accept all --json` on a host and waits until it is published.
    func startReceiver(
        _ lan: SimulatedLAN, on host: String, as user: LANUser, name: String, published: String? = nil
    ) async throws -> (process: HostProcess, port: Int, fingerprint: String) {
        let receiver = try lan.share(on: host, as: user, ["receive", "--name", name, "--accept", "all", "--json", "--port", "0"])
        let listening = try await receiver.waitForEvent("listening").object
        try await receiver.waitForEvent("published") { $0["name"] as? String == (published ?? name) }
        return (receiver, listening["port"] as? Int ?? 0, listening["fingerprint"] as? String ?? "")
    }

    @Test func aReceiverIsListedOnTheOtherHostsWithItsAddressesAndFingerprint() async throws {
        let lan = try SimulatedLAN(hosts: ["a", "b", "c"], prefix: SimulatedLAN.networkPrefix)
        defer { lan.down() }
        let dir = TemporaryDirectory("net-list")
        let alice = LANUser("alice", in: dir)
        let (receiver, port, fingerprint) = try await startReceiver(lan, on: "a", as: alice, name: "desk")
        defer { receiver.terminate() }
        let ipv4 = try lan.ipv4("a")
        let ipv6 = try lan.ipv6LinkLocal("a")

        for (host, user) in [("b", LANUser("bob", in: dir)), ("c", LANUser("carol", in: dir))] {
            let started = ContinuousClock.now
            let result = try await lan.runShare(on: host, as: user, ["peers", "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(ContinuousClock.now - started < .seconds(5), "listed within a few seconds")
            let peers = try #require((try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [[String: Any]])
            let desk = try #require(peers.first { $0["name"] as? String == "desk" }, "\(result.stdout)")
            #expect(desk["host"] as? String == "a.local")
            #expect(desk["port"] as? Int == port)
            #expect(desk["fingerprintPrefix"] as? String == String(fingerprint.prefix(16)))
            #expect(desk["claimsKeyOf"] is NSNull, "it advertises no key verified here")
            #expect(desk["self"] as? Bool == false)
            let addresses = (desk["addresses"] as? [[String: Any]])?.compactMap { $0["address"] as? String }
            #expect(addresses == [ipv4, "\(ipv6)%eth0"])
        }
        // The human table on b, and the receiver's own machine marks it.
        let table = try await lan.runShare(on: "b", as: LANUser("bob", in: dir), ["peers"])
        #expect(table.stdout.hasPrefix("NAME  HOST     PORT"))
        #expect(table.stdout.contains("desk  a.local  \(port)"))
        let own = try await lan.runShare(on: "a", as: alice, ["peers"])
        #expect(own.stdout.contains("this machine"))
    }

    @Test func sendsByNameAndByFingerprintPrefix() async throws {
        let lan = try SimulatedLAN(hosts: ["a", "b"], prefix: SimulatedLAN.networkPrefix)
        defer { lan.down() }
        let dir = TemporaryDirectory("net-send")
        let alice = LANUser("alice", in: dir)
        let bob = LANUser("bob", in: dir)
        let (receiver, port, fingerprint) = try await startReceiver(lan, on: "a", as: alice, name: "Desk")
        defer { receiver.terminate() }
        FileTree.writeText(dir.at("note.txt"), "by name\n")
        FileTree.makeFolder(dir.at("Bugs.sbz/Images"))
        FileTree.writeText(dir.at("Bugs.sbz/Data.plist"), "<plist/>")

        let byName = try await lan.runShare(on: "b", as: bob, ["send", dir.at("note.txt"), "--to", "desk", "--json"])
        #expect(byName.status == 0, "\(byName.stderr)")
        let report = try #require(jsonObject(byName.stdout))
        #expect((report["peer"] as? [String: Any])?["address"] as? String == "\(try lan.ipv4("a")):\(port)")
        #expect(FileManager.default.contents(atPath: alice.downloads + "/note.txt") == Data("by name\n".utf8))

        let byPrefix = try await lan.runShare(on: "b", as: bob, ["send", dir.at("Bugs.sbz"), "--to", String(fingerprint.prefix(8))])
        #expect(byPrefix.status == 0, "\(byPrefix.stderr)")
        #expect(byPrefix.stdout.hasPrefix("Sent 1 item to \"Desk\" (new: not verified) at \(try lan.ipv4("a")):"))
        #expect(FileTree.allPaths(alice.downloads + "/Bugs.sbz") == ["Data.plist", "Images"])

        // Sending without a terminal to compare codes on does not make the receiver known.
        let peers = try await lan.runShare(on: "b", as: bob, ["peers", "--json"])
        let listed = (try? JSONSerialization.jsonObject(with: Data(peers.stdout.utf8))) as? [[String: Any]]
        #expect(listed?.first?["claimsKeyOf"] is NSNull)

        // Its host as 'share peers' shows it, with or without the port: found through Avahi (the
        // namespaces have no nss-mdns), and the advertised key must answer.
        let host = try #require(listed?.first?["host"] as? String)
        #expect(host.hasSuffix(".local"))
        for target in [host, "\(host):\(port)"] {
            let byHost = try await lan.runShare(on: "b", as: bob, ["send", dir.at("note.txt"), "--to", target, "--json"])
            #expect(byHost.status == 0, "\(target): \(byHost.stderr)")
            #expect((jsonObject(byHost.stdout)?["peer"] as? [String: Any])?["name"] as? String == "Desk")
        }

        // An unknown and an ambiguous name are clear errors listing what is visible.
        let unknown = try await lan.runShare(on: "b", as: bob, ["send", dir.at("note.txt"), "--to", "printer"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "Error: no peer named 'printer' is visible; visible peers: 'Desk'")
    }

    @Test func twoReceiversWantingTheSameNameAreBothVisible() async throws {
        let lan = try SimulatedLAN(hosts: ["a", "b", "c"], prefix: SimulatedLAN.networkPrefix)
        defer { lan.down() }
        let dir = TemporaryDirectory("net-collide")
        let (first, _, _) = try await startReceiver(lan, on: "a", as: LANUser("alice", in: dir), name: "desk")
        defer { first.terminate() }
        let second = try lan.share(on: "b", as: LANUser("bob", in: dir), ["receive", "--name", "desk", "--accept", "all", "--json", "--port", "0"])
        defer { second.terminate() }
        let renamed = try await second.waitForEvent("renamed").object
        #expect(renamed["from"] as? String == "desk")
        let newName = try #require(renamed["to"] as? String)
        #expect(newName != "desk")
        try await second.waitForEvent("published") { $0["name"] as? String == newName }

        let carol = LANUser("carol", in: dir)
        let peers = try await lan.runShare(on: "c", as: carol, ["peers", "--json"])
        let names = ((try? JSONSerialization.jsonObject(with: Data(peers.stdout.utf8))) as? [[String: Any]])?.compactMap { $0["name"] as? String }
        #expect(Set(names ?? []) == ["desk", newName])
        // "desk" names the first exactly; the renamed one by its full name.
        FileTree.writeText(dir.at("x.txt"), "x")
        let sent = try await lan.runShare(on: "c", as: carol, ["send", dir.at("x.txt"), "--to", newName])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.at("bob/Downloads/x.txt")))
    }

    @Test func aStoppedReceiverDisappearsFromWatch() async throws {
        let lan = try SimulatedLAN(hosts: ["a", "b"], prefix: SimulatedLAN.networkPrefix)
        defer { lan.down() }
        let dir = TemporaryDirectory("net-watch")
        let watcher = try lan.share(on: "b", as: LANUser("bob", in: dir), ["peers", "--watch", "--json"])
        defer { watcher.terminate() }
        let (receiver, _, _) = try await startReceiver(lan, on: "a", as: LANUser("alice", in: dir), name: "desk")
        let appeared = try await watcher.waitForEvent("appeared") { ($0["peer"] as? [String: Any])?["name"] as? String == "desk" }
        receiver.signal(SIGTERM)
        #expect(await receiver.exitStatus(within: .seconds(10)) == 128 + SIGTERM)
        try await watcher.waitForEvent("disappeared", after: appeared.index) { $0["name"] as? String == "desk" }
        watcher.signal(SIGINT)
        #expect(await watcher.exitStatus(within: .seconds(5)) == 128 + SIGINT)
    }

    @Test func aReceiverRepublishesWhenAvahiRestarts() async throws {
        let lan = try SimulatedLAN(hosts: ["a", "b"], prefix: SimulatedLAN.networkPrefix)
        defer { lan.down() }
        let dir = TemporaryDirectory("net-restart")
        let (receiver, _, _) = try await startReceiver(lan, on: "a", as: LANUser("alice", in: dir), name: "desk")
        defer { receiver.terminate() }
        let before = receiver.lines.count - 1
        try lan.restartAvahi("a")
        let lost = try await receiver.waitForEvent("not-discoverable", after: before)
        try await receiver.waitForEvent("published", after: lost.index, within: .seconds(15)) { $0["name"] as? String == "desk" }
        let peers = try await lan.runShare(on: "b", as: LANUser("bob", in: dir), ["peers", "--json"])
        #expect(peers.stdout.contains("\"name\": \"desk\""), "\(peers.stdout)")
    }

    @Test func aPeerWhoseKeyDoesNotMatchItsAdvertisementIsRefused() async throws {
        let lan = try SimulatedLAN(hosts: ["a", "b"], prefix: SimulatedLAN.networkPrefix)
        defer { lan.down() }
        let dir = TemporaryDirectory("net-forged")
        let mallory = LANUser("mallory", in: dir)
        let (receiver, port, _) = try await startReceiver(lan, on: "a", as: mallory, name: "mallory")
        defer { receiver.terminate() }
        // Host a also advertises "desk" on the same port with another machine's fingerprint.
        let forged = String(repeating: "ab", count: 16)
        let probe = try lan.run(on: "a", try #require(SimulatedLAN.probe), ["publish", "desk", String(port), "v=2", "fp=\(forged)"])
        defer { probe.terminate() }
        _ = try await probe.waitForLine("published", within: .seconds(10)) { $0.contains("\"published\"") }

        FileTree.writeText(dir.at("secret.txt"), "for desk only")
        let sent = try await lan.runShare(on: "b", as: LANUser("bob", in: dir), ["send", dir.at("secret.txt"), "--to", "desk"])
        #expect(sent.status == 1)
        #expect(sent.stderr.contains("presented the key"))
        #expect(sent.stderr.contains("may be impersonating that peer; nothing was sent"))
        #expect(FileTree.allPaths(mallory.downloads).isEmpty)

        // In JSON, the peer is the key that answered, never the one the name stood for.
        let bob = LANUser("bob", in: dir)
        let malloryKey = try #require(jsonObject(try await lan.runShare(on: "a", as: mallory, ["identity", "--json"]).stdout)?["fingerprint"] as? String)
        let json = try await lan.runShare(on: "b", as: bob, ["send", dir.at("secret.txt"), "--to", "desk", "--json"])
        let line = try #require(jsonObject(json.stdout))
        #expect(line["outcome"] as? String == "identityMismatch")
        let answered = try #require(line["peer"] as? [String: Any])
        #expect(answered["fingerprint"] as? String == malloryKey)
        #expect(answered["verified"] as? Bool == false)
        #expect(answered["verifiedAs"] is NSNull)
    }

    @Test func sendsToTwoPeersAtOnce() async throws {
        let lan = try SimulatedLAN(hosts: ["a", "b", "c"], prefix: SimulatedLAN.networkPrefix)
        defer { lan.down() }
        let dir = TemporaryDirectory("net-two")
        let alice = LANUser("alice", in: dir)
        let carol = LANUser("carol", in: dir)
        let (first, _, _) = try await startReceiver(lan, on: "a", as: alice, name: "desk")
        defer { first.terminate() }
        let (second, _, _) = try await startReceiver(lan, on: "c", as: carol, name: "laptop")
        defer { second.terminate() }
        FileTree.writeFile(dir.at("photo.jpg"), size: 3_000_000, seed: 5)

        let sent = try await lan.runShare(on: "b", as: LANUser("bob", in: dir), ["send", dir.at("photo.jpg"), "--to", "desk", "--to", "laptop", "--json"])
        #expect(sent.status == 0, "\(sent.stderr)")
        let results = sent.stdout.split(separator: "\n").compactMap(jsonObject)
        #expect(results.map { ($0["peer"] as? [String: Any])?["name"] as? String } == ["desk", "laptop"])
        #expect(results.allSatisfy { $0["ok"] as? Bool == true })
        #expect(FileTree.digest(alice.downloads + "/photo.jpg") == FileTree.digest(dir.at("photo.jpg")))
        #expect(FileTree.digest(carol.downloads + "/photo.jpg") == FileTree.digest(dir.at("photo.jpg")))
    }

    @Test func withoutAvahiDaemonNamesFailWith69ButAddressesWork() async throws {
        let lan = try SimulatedLAN(hosts: ["a", "b"], prefix: SimulatedLAN.networkPrefix)
        defer { lan.down() }
        let dir = TemporaryDirectory("net-nodaemon")
        let alice = LANUser("alice", in: dir)
        let bob = LANUser("bob", in: dir)
        try lan.stopAvahi("a")
        try lan.stopAvahi("b")
        let receiver = try lan.share(on: "a", as: alice, ["receive", "--accept", "all", "--json", "--port", "0"])
        defer { receiver.terminate() }
        let port = try await receiver.waitForEvent("listening").object["port"] as? Int ?? 0
        let notDiscoverable = try await receiver.waitForEvent("not-discoverable").object
        #expect((notDiscoverable["reason"] as? String)?.contains("avahi-daemon is not running") == true)
        #expect((notDiscoverable["reason"] as? String)?.contains("sudo systemctl start avahi-daemon") == true)

        let peers = try await lan.runShare(on: "b", as: bob, ["peers"])
        #expect(peers.status == 69)
        #expect(peers.stderr.hasPrefix("Error: avahi-daemon is not running"))
        #expect(peers.stderr.contains("sudo systemctl start avahi-daemon"))
        FileTree.writeText(dir.at("a.txt"), "a")
        let byName = try await lan.runShare(on: "b", as: bob, ["send", dir.at("a.txt"), "--to", "desk"])
        #expect(byName.status == 69)
        #expect(byName.stderr.contains("Sending to HOST:PORT works without it."))
        let byAddress = try await lan.runShare(on: "b", as: bob, ["send", dir.at("a.txt"), "--to", "\(try lan.ipv4("a")):\(port)"])
        #expect(byAddress.status == 0, "\(byAddress.stderr)")
        #expect(FileManager.default.fileExists(atPath: alice.downloads + "/a.txt"))
    }
}
