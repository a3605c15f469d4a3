import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `share receive --localsend` taking files from an independent LocalSend sender (localsendd) on a
/// simulated LAN: found by discovery, the files whole in the receive folder, the sender never taken
/// for a verified peer, its PIN, and the `trusted` policy that refuses it.
@Suite(.serialized, .enabled(if: SimulatedLAN.networkShouldRun, SimulatedLAN.networkSkipNote))
struct LocalSendReceivingTests {
    /// Starts `share receive --localsend` on `host` and waits until it listens.
    func receiver(
        _ lan: SimulatedLAN, on host: String, as user: LANUser, _ extra: [String] = [], environment: [String: String] = [:]
    ) async throws -> (process: HostProcess, listening: [String: Any]) {
        let process = try lan.run(
            on: host, try #require(SimulatedLAN.share),
            ["receive", "--name", "Desk", "--json", "--port", "0", "--localsend"] + extra,
            environment: user.environment.merging(environment) { $1 }, label: "share receive on \(host)",
            separateStandardError: true)
        let listening = try await process.waitForEvent("listening").object
        return (process, listening)
    }

    @Test func aLocalSendSenderFindsTheReceiverAndItsFilesArriveWhole() async throws {
        let dir = TemporaryDirectory("localsend-receive")
        let lan = try SimulatedLAN(hosts: ["desk", "phone"], prefix: LocalSendDiscoveryTests.prefix)
        defer { lan.down() }
        let user = LANUser("ana", in: dir)
        FileTree.writeFile(dir.at("photo 1.jpg"), size: 2_500_000, seed: 9)
        FileTree.writeText(dir.at("notes ünï.txt"), "from the phone\n")
        FileTree.writeText(dir.at("empty.txt"), "")
        let (receiver, listening) = try await receiver(lan, on: "desk", as: user, ["--accept", "everyone"])
        defer { receiver.terminate() }
        let localsend = try #require(listening["localsend"] as? [String: Any])
        #expect(localsend["port"] as? Int == 53317)
        let fingerprint = try #require(localsend["fingerprint"] as? String)

        let phone = try LocalSendDaemon(on: "phone", of: lan, alias: "Ana's phone", in: dir)
        defer { phone.stop() }
        _ = try await phone.fingerprint()
        // Discovery: the phone hears share's announcement (or share's answer to its own).
        var seen: [String: Any]?
        for _ in 0..<50 where seen == nil {
            seen = try phone.devices().first { ($0["fingerprint"] as? String)?.uppercased() == fingerprint }
            if seen == nil { try await Task.sleep(for: .milliseconds(200)) }
        }
        let known = try phone.devices()
        let device = try #require(seen, "localsendd never saw share: \(known)")
        #expect(device["alias"] as? String == "Desk")
        // Another share machine lists it once, as a share receiver: never as an unverified LocalSend
        // device, which would take share's own (mutually authenticated) protocol out of the way.
        let other = LANUser("bo", in: dir)
        let looking = try lan.run(
            on: "phone", try #require(SimulatedLAN.share), ["peers", "--json", "--wait", "3"],
            environment: other.environment, label: "share peers", separateStandardError: true)
        #expect(await looking.exitStatus(within: .seconds(30)) == 0)
        try await Task.sleep(for: .milliseconds(50))
        let listed = (try? JSONSerialization.jsonObject(with: Data(looking.lines.joined(separator: "\n").utf8))) as? [[String: Any]] ?? []
        #expect(listed.contains { $0["name"] as? String == "Desk" && $0["protocol"] as? String == "share" }, "\(listed)")
        #expect(!listed.contains { $0["name"] as? String == "Desk" && $0["protocol"] as? String == "localsend" }, "\(listed)")
        #expect(listed.contains { $0["name"] as? String == "Ana's phone" && $0["protocol"] as? String == "localsend" }, "\(listed)")

        let sent = try phone.send([dir.at("photo 1.jpg"), dir.at("notes ünï.txt"), dir.at("empty.txt")], to: "Desk")
        #expect(sent.status == 0, "\(sent.output)")
        let received = try await receiver.waitForEvent("received", within: .seconds(30)).object
        let peer = try #require(received["peer"] as? [String: Any])
        #expect(peer["protocol"] as? String == "localsend")
        #expect(peer["verified"] as? Bool == false)
        #expect(peer["fingerprint"] is NSNull)
        #expect(peer["name"] as? String == "Ana's phone")
        #expect(received["files"] as? Int == 3)
        #expect(FileTree.digest(user.downloads + "/photo 1.jpg") == FileTree.digest(dir.at("photo 1.jpg")))
        #expect(FileTree.readText(user.downloads + "/notes ünï.txt") == "from the phone\n")
        #expect(FileTree.readText(user.downloads + "/empty.txt") == "", "a 0-byte file arrives as one")

        // The history records the LocalSend sender as such.
        let history = try await lan.runShare(on: "desk", as: user, ["history", "--json"])
        let last = try #require(((try? JSONSerialization.jsonObject(with: Data(history.stdout.utf8))) as? [[String: Any]])?.last)
        #expect(last["direction"] as? String == "received")
        #expect((last["peer"] as? [String: Any])?["localsendFingerprint"] as? String != nil)

        // The same name again is never overwritten.
        let again = try phone.send([dir.at("notes ünï.txt")], to: "Desk")
        #expect(again.status == 0, "\(again.output)")
        try await receiver.waitForEvent("received", after: 0, within: .seconds(30)) { ($0["items"] as? [Any])?.count == 1 }
        #expect(FileTree.readText(user.downloads + "/notes ünï (2).txt") == "from the phone\n")
    }

    @Test func aPinIsRequiredAndGuessingLocksTheAddressOut() async throws {
        let dir = TemporaryDirectory("localsend-receive-pin")
        let lan = try SimulatedLAN(hosts: ["desk", "phone"], prefix: LocalSendDiscoveryTests.prefix)
        defer { lan.down() }
        let user = LANUser("ana", in: dir)
        FileTree.writeText(dir.at("a.txt"), "pinned\n")
        let (receiver, listening) = try await receiver(lan, on: "desk", as: user, ["--accept", "everyone", "--localsend-pin", "2468"])
        defer { receiver.terminate() }
        #expect((listening["localsend"] as? [String: Any])?["pin"] as? Bool == true)
        let phone = try LocalSendDaemon(on: "phone", of: lan, alias: "Guesser", in: dir)
        defer { phone.stop() }
        _ = try await phone.fingerprint()
        let desk = try lan.ipv4("desk")

        let withPin = try phone.send([dir.at("a.txt")], to: desk, pin: "2468")
        #expect(withPin.status == 0, "\(withPin.output)")
        try await receiver.waitForEvent("received", within: .seconds(30))
        #expect(FileTree.readText(user.downloads + "/a.txt") == "pinned\n")

        let without = try phone.send([dir.at("a.txt")], to: desk)
        #expect(without.status != 0)
        #expect(without.output.contains("401") || without.output.lowercased().contains("pin"), "\(without.output)")
        for _ in 0..<2 { _ = try phone.send([dir.at("a.txt")], to: desk, pin: "0000") }
        // Three wrong (or missing) PINs in a minute: even the right one is refused for a while.
        let locked = try phone.send([dir.at("a.txt")], to: desk, pin: "2468")
        #expect(locked.status != 0)
        #expect(locked.output.contains("429") || locked.output.lowercased().contains("too many"), "\(locked.output)")
        #expect(!FileManager.default.fileExists(atPath: user.downloads + "/a (2).txt"))
    }

    @Test func trustedRefusesLocalSendSendersAndAskSaysTheyAreNotVerified() async throws {
        let dir = TemporaryDirectory("localsend-receive-policy")
        let lan = try SimulatedLAN(hosts: ["desk", "phone"], prefix: LocalSendDiscoveryTests.prefix)
        defer { lan.down() }
        let user = LANUser("ana", in: dir)
        FileTree.writeText(dir.at("a.txt"), "hello\n")
        let phone = try LocalSendDaemon(on: "phone", of: lan, alias: "Ana's phone", in: dir)
        defer { phone.stop() }
        _ = try await phone.fingerprint()
        let desk = try lan.ipv4("desk")

        let (trusted, _) = try await receiver(lan, on: "desk", as: user, ["--accept", "trusted"])
        let refused = try phone.send([dir.at("a.txt")], to: desk)
        #expect(refused.status != 0)
        let declined = try await trusted.waitForEvent("declined").object
        #expect((declined["reason"] as? String)?.contains("cannot be verified") == true, "\(declined)")
        #expect((declined["peer"] as? [String: Any])?["protocol"] as? String == "localsend")
        #expect(!FileManager.default.fileExists(atPath: user.downloads + "/a.txt"))
        trusted.terminate()
        _ = await trusted.exitStatus(within: .seconds(10))

        // Under ask, the person sees that a LocalSend device is not verified, and a yes takes it.
        let terminal = try SimulatedLAN.shareTerminal(
            on: "desk", as: user, prefix: LocalSendDiscoveryTests.prefix, ["receive", "--localsend", "--port", "0"])
        defer { terminal.interrupt() }
        #expect(terminal.waitForOutput(containing: "Also answering LocalSend senders", timeout: .seconds(15)), "\(terminal.output)")
        let sending = Task.detached { try phone.send([dir.at("a.txt")], to: desk) }
        #expect(terminal.waitForOutput(containing: "Accept?", timeout: .seconds(20)), "\(terminal.output)")
        #expect(terminal.output.contains("LocalSend device \"Ana's phone\" (Linux, mobile), not verified"), "\(terminal.output)")
        #expect(terminal.output.contains("cannot prove who they are"))
        terminal.type("y\r")
        let result = try await sending.value
        #expect(result.status == 0, "\(result.output)")
        #expect(terminal.waitForOutput(containing: "Received 1 item from LocalSend device", timeout: .seconds(20)), "\(terminal.output)")
        #expect(FileTree.readText(user.downloads + "/a.txt") == "hello\n")
    }
}
