import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Two machines with one default name ("vm") on one simulated LAN, one verified and one not:
/// identity is the key, in both directions.
@Suite(.serialized, .enabled(if: SimulatedLAN.networkShouldRun, SimulatedLAN.networkSkipNote))
struct SameNameTests {
    /// `user` and `peer` compare codes (`share trust verify`, both on pseudo-terminals, on loopback)
    /// so that each remembers the other.
    func verify(_ user: LANUser, with peer: LANUser, in dir: TemporaryDirectory) throws {
        let share = try #require(SimulatedLAN.share)
        func terminal(_ who: LANUser, _ arguments: [String]) -> PseudoTerminalProcess {
            var environment = ProcessInfo.processInfo.environment
            for (key, value) in who.environment { environment[key] = value }
            return PseudoTerminalProcess(
                command: ([share] + arguments).map { "'\($0)'" }.joined(separator: " "), environment: environment)
        }
        let receiver = terminal(peer, ["receive", "--port", "0", "--dir", dir.at("pairing")])
        #expect(receiver.waitForOutput(containing: "Press Ctrl-C to stop."))
        let port = try #require(receiver.output.split(separator: " ").drop { $0 != "port" }.dropFirst().first.flatMap { Int($0) })
        let verifier = terminal(user, ["trust", "verify", "127.0.0.1:\(port)"])
        #expect(verifier.waitForOutput(containing: "(Enter alone: no):"))
        #expect(receiver.waitForOutput(containing: "(Enter alone: no):"))
        // Each person confirms the code by typing its last 3 digits.
        usleep(200_000)
        verifier.type(lastDigits(after: "Verification code:", in: verifier.output) + "\n")
        receiver.type(lastDigits(after: "  code ", in: receiver.output) + "\n")
        #expect(verifier.wait() == 0, "\(verifier.output)")
        #expect(receiver.waitForOutput(containing: "it is remembered."))
        receiver.interrupt()
        _ = receiver.wait()
    }

    /// The last 3 digits of the verification code shown after the last `marker` in `text`.
    func lastDigits(after marker: String, in text: String) -> String {
        guard let range = text.range(of: marker, options: .backwards) else { return "" }
        return String(text[range.upperBound...].drop { $0 == " " }.prefix(15).suffix(3))
    }

    /// Runs `share identity set-name name` as `user` (no network needed).
    func setName(_ user: LANUser, _ name: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(SimulatedLAN.share))
        process.arguments = ["identity", "set-name", name]
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in user.environment { environment[key] = value }
        process.environment = environment
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        process.waitUntilExit()
    }

    func peers(_ lan: SimulatedLAN, on host: String, as user: LANUser) async throws -> [[String: Any]] {
        let listed = try await lan.runShare(on: host, as: user, ["peers", "--json"])
        return (try? JSONSerialization.jsonObject(with: Data(listed.stdout.utf8))) as? [[String: Any]] ?? []
    }

    @Test func theVerifiedVMIsTheVerifiedKeyWhicheverNameItHasAndTheOtherIsAStranger() async throws {
        let dir = TemporaryDirectory("net-same-name")
        let vm = LANUser("vm", in: dir)
        let otherVM = LANUser("othervm", in: dir)
        let user = LANUser("user", in: dir)
        for (who, name) in [(vm, "vm"), (otherVM, "vm"), (user, "user")] { try setName(who, name) }
        try verify(user, with: vm, in: dir)
        let lan = try SimulatedLAN(hosts: ["a", "b", "c"], prefix: SimulatedLAN.networkPrefix)
        defer { lan.down() }

        // The stranger takes the name first; the verified one is renamed by Avahi.
        let stranger = try lan.share(on: "b", as: otherVM, ["receive", "--name", "vm", "--accept", "all", "--json", "--port", "0"])
        defer { stranger.terminate() }
        let strangerKey = try await stranger.waitForEvent("listening").object["fingerprint"] as? String ?? ""
        try await stranger.waitForEvent("published") { $0["name"] as? String == "vm" }
        let verified = try lan.share(on: "a", as: vm, ["receive", "--name", "vm", "--accept", "all", "--json", "--port", "0"])
        defer { verified.terminate() }
        let verifiedKey = try await verified.waitForEvent("listening").object["fingerprint"] as? String ?? ""
        let renamed = try await verified.waitForEvent("renamed").object["to"] as? String ?? ""
        #expect(renamed != "vm")
        try await verified.waitForEvent("published") { $0["name"] as? String == renamed }

        // share peers: the verified key claimed under its new name (a claim until a connection), the stranger flagged.
        let listed = try await peers(lan, on: "c", as: user)
        let mine = try #require(listed.first { $0["name"] as? String == renamed }, "\(listed)")
        #expect(mine["claimsKeyOf"] as? String == verifiedKey, "a claim: no connection proved it yet")
        #expect(mine["claimedVerifiedName"] as? String == "vm")
        #expect(mine["verified"] as? Bool == false)
        let other = try #require(listed.first { $0["name"] as? String == "vm" })
        #expect(other["claimsKeyOf"] is NSNull)
        #expect(other["claimsNameOf"] as? String == verifiedKey)
        let table = try await lan.runShare(on: "c", as: user, ["peers"])
        #expect(table.stdout.contains("NOT the \"vm\" you verified"), "\(table.stdout)")
        #expect(table.stdout.contains("claims to be your verified \"vm\""), "\(table.stdout)")

        // Sending to "vm" goes to the verified key, and the report keeps Avahi's name.
        FileTree.writeText(dir.at("note.txt"), "for my vm")
        let sent = try await lan.runShare(on: "c", as: user, ["send", dir.at("note.txt"), "--to", "vm", "--json"])
        #expect(sent.status == 0, "\(sent.stderr)")
        let report = try #require(jsonObject(sent.stdout))
        #expect((report["peer"] as? [String: Any])?["name"] as? String == renamed)
        #expect((report["peer"] as? [String: Any])?["fingerprint"] as? String == verifiedKey)
        #expect(report["verification"] as? String == "verified")
        #expect(FileManager.default.fileExists(atPath: vm.downloads + "/note.txt"))
        #expect(!FileManager.default.fileExists(atPath: otherVM.downloads + "/note.txt"))

        // With the verified vm gone, "vm" is refused, naming the other machine; its prefix works.
        verified.signal(SIGTERM)
        _ = await verified.exitStatus(within: .seconds(10))
        try await Task.sleep(for: .seconds(2))
        let refused = try await lan.runShare(on: "c", as: user, ["send", dir.at("note.txt"), "--to", "vm"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("another machine now answers to 'vm' (fingerprint"), "\(refused.stderr)")
        #expect(refused.stderr.contains("your verified peer's trust is untouched"))
        #expect(refused.stderr.contains("use --to \(strangerKey.prefix(16))"))
        #expect(!FileManager.default.fileExists(atPath: otherVM.downloads + "/note.txt"))
        let byPrefix = try await lan.runShare(on: "c", as: user, ["send", dir.at("note.txt"), "--to", String(strangerKey.prefix(16))])
        #expect(byPrefix.status == 0, "\(byPrefix.stderr)")
        #expect(FileManager.default.fileExists(atPath: otherVM.downloads + "/note.txt"))
    }

    @Test func aReceiverTellsTheVerifiedVMFromTheOneThatTookItsName() async throws {
        let dir = TemporaryDirectory("net-same-name-in")
        let vm = LANUser("vm", in: dir)
        let otherVM = LANUser("othervm", in: dir)
        let user = LANUser("user", in: dir)
        for (who, name) in [(vm, "vm"), (otherVM, "vm"), (user, "user")] { try setName(who, name) }
        try verify(vm, with: user, in: dir)
        let lan = try SimulatedLAN(hosts: ["a", "b", "c"], prefix: SimulatedLAN.networkPrefix)
        defer { lan.down() }
        let receiver = try lan.share(on: "c", as: user, ["receive", "--name", "user", "--accept", "all", "--json", "--port", "0"])
        defer { receiver.terminate() }
        try await receiver.waitForEvent("published") { $0["name"] as? String == "user" }
        FileTree.writeText(dir.at("a.txt"), "from the verified vm")
        FileTree.writeText(dir.at("b.txt"), "from the other vm")

        let fromStranger = try await lan.runShare(on: "b", as: otherVM, ["send", dir.at("b.txt"), "--to", "user"])
        #expect(fromStranger.status == 0, "accepted: it is another machine, not a changed key: \(fromStranger.stderr)")
        let first = try await receiver.waitForEvent("received").object
        let strangerPeer = try #require(first["peer"] as? [String: Any])
        #expect(strangerPeer["name"] as? String == "vm")
        #expect(strangerPeer["verified"] as? Bool == false)
        #expect((strangerPeer["claimsNameOf"] as? String)?.count == 64)

        let fromVerified = try await lan.runShare(on: "a", as: vm, ["send", dir.at("a.txt"), "--to", "user"])
        #expect(fromVerified.status == 0, "\(fromVerified.stderr)")
        let second = try await receiver.waitForEvent("received") { ($0["peer"] as? [String: Any])?["verified"] as? Bool == true }.object
        #expect((second["peer"] as? [String: Any])?["verifiedAs"] as? String == "vm")
        #expect(FileManager.default.fileExists(atPath: user.downloads + "/a.txt"))
        #expect(FileManager.default.fileExists(atPath: user.downloads + "/b.txt"))
    }
}
