import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The fault lab between simulated hosts (Tests/Hosts/README.md): links limited to a LAN's rate
/// (tc tbf), a link taken down in the middle of a transfer, a receiver stopped as a sleeping laptop
/// stops, and the proxy as a process on a host of its own, driven by lines on its stdin.
@Suite(.serialized, .enabled(if: SimulatedLAN.faultLabShouldRun, SimulatedLAN.faultLabSkipNote))
struct LinkFaultTests {
    @Test func aRateLimitedLinkSlowsATransferAndAStoppedReceiverFinishesOnceContinued() async throws {
        let lab = try await LinkLab(hosts: ["a", "b"], label: "net-rate")
        defer { lab.down() }
        let (lan, dir, alice, bob, receiver, address) = (lab.lan, lab.dir, lab.alice, lab.bob, lab.receiver, lab.address)
        FileTree.writeFile(dir.at("big.bin"), size: 20_000_000, seed: 12)

        try lan.limitRate("a", bitsPerSecond: 100_000_000)
        let started = ContinuousClock.now
        let limited = try await lan.runShare(on: "b", as: bob, ["send", dir.at("big.bin"), "--to", address])
        let elapsed = ContinuousClock.now - started
        #expect(limited.status == 0, "\(limited.stderr)")
        // 1.6 s at best for 20 MB at 100 Mbit/s: only the slow side is asserted, which cannot flake.
        #expect(elapsed >= .milliseconds(1200), "20 MB over a 100 Mbit/s link took \(elapsed)")
        #expect(FileTree.digest(alice.downloads + "/big.bin") == FileTree.digest(dir.at("big.bin")))

        // The receiver stops (SIGSTOP) in the middle of the next transfer and continues later.
        let sender = try lan.share(on: "b", as: bob, ["send", dir.at("big.bin"), "--to", address])
        #expect(await waitUntil { stagedBytes(in: alice.inbox) > 2 << 20 }, "data reaches the receiver")
        try receiver.suspend()
        let staged = stagedBytes(in: alice.inbox)
        try await Task.sleep(for: .seconds(1))
        #expect(stagedBytes(in: alice.inbox) == staged, "a stopped receiver stores nothing")
        #expect(await sender.exitStatus(within: .zero) == nil, "the sender waits")
        try receiver.resume()
        #expect(await sender.exitStatus(within: .seconds(60)) == 0, "\(sender.transcript)")
        #expect(FileTree.digest(alice.downloads + "/big (2).bin") == FileTree.digest(dir.at("big.bin")))

        try lan.removeRateLimit("a")
        let unlimited = try await lan.runShare(on: "b", as: bob, ["send", dir.at("big.bin"), "--to", address])
        #expect(unlimited.status == 0, "\(unlimited.stderr)")
    }

    @Test func aLinkTakenDownInTheMiddleIsWaitedOutAndTheTransferContinuesOnceItIsBack() async throws {
        let lab = try await LinkLab(hosts: ["a", "b"], label: "net-linkdown")
        defer { lab.down() }
        let (lan, dir, alice, bob, receiver, address) = (lab.lan, lab.dir, lab.alice, lab.bob, lab.receiver, lab.address)
        FileTree.writeFile(dir.at("big.bin"), size: 20_000_000, seed: 13)
        // About 4 seconds at 40 Mbit/s, so the link goes down in the middle; the sender's TCP gives
        // up on a silent peer after about 3 seconds instead of 15 minutes.
        try lan.limitRate("a", bitsPerSecond: 40_000_000)
        try lan.setTCPRetries("b", 3)

        let sender = try lan.share(on: "b", as: bob, ["send", dir.at("big.bin"), "--to", address, "--retry-for", "60s"])
        #expect(await waitUntil { stagedBytes(in: alice.inbox) > 2 << 20 }, "data reaches the receiver")
        try lan.linkDown("a")
        let endedWhileDown = await sender.exitStatus(within: .seconds(8))
        try lan.linkUp("a")
        let status = await sender.exitStatus(within: .seconds(90))

        // The sender notices, keeps trying while the link is down, and continues from what the
        // receiver holds once it is back; the receiver's stale half is replaced by the new connection.
        #expect(endedWhileDown == nil, "\(sender.transcript)")
        #expect(status == 0, "\(sender.transcript)")
        let error = sender.errorLines.joined(separator: "\n")
        #expect(error.contains("connection lost") && error.contains("resuming: "), "\(error)")
        #expect(FileTree.digest(alice.downloads + "/big.bin") == FileTree.digest(dir.at("big.bin")))
        #expect(FileTree.allPaths(alice.downloads) == ["big.bin"], "one copy")
        #expect(!FileTree.allPaths(alice.inbox).contains { !$0.hasPrefix(".share-staging") }, "no inbox entry")
        receiver.forceKill()
    }

    @Test func theProxyProcessOnAThirdHostCutsAPlannedConnectionAndCountsBytes() async throws {
        let lab = try await LinkLab(hosts: ["a", "b", "c"], label: "net-proxy")
        defer { lab.down() }
        let (lan, dir, alice, bob, address) = (lab.lan, lab.dir, lab.alice, lab.bob, lab.address)
        let proxy = try lan.run(
            on: "c", try #require(SimulatedLAN.faultProxy), ["--to", address, "--listen", "0"],
            label: "fault proxy on c",
            separateStandardError: true)
        defer { proxy.closeInput() }
        let listening = try #require(
            jsonObject(try await proxy.waitForLine("listening", within: .seconds(10)) { $0.contains("listening") }.line)
        )
        let through = "\(try lan.ipv4("c")):\(try #require(listening["port"] as? Int))"
        func command(_ line: String) async throws -> [String: Any] {
            let before = proxy.lines.count - 1
            proxy.write(line + "\n")
            let answer = try await proxy.waitForLine("answer to \(line)", after: before, within: .seconds(5)) {
                $0.hasPrefix("{\"")
            }
            return jsonObject(answer.line) ?? [:]
        }
        #expect(try await command("plan conn=0 dir=up cut=300000")["ok"] as? Bool == true)
        FileTree.writeFile(dir.at("photo.jpg"), size: 2_000_000, seed: 14)

        let cut = try await lan.runShare(on: "b", as: bob, ["send", dir.at("photo.jpg"), "--to", through, "--no-retry"])
        #expect(cut.status == 1)
        #expect(cut.stderr.hasPrefix("Error: "), "\(cut.stderr)")
        #expect(FileTree.allPaths(alice.downloads).isEmpty, "nothing under a final name")
        let clean = try await lan.runShare(on: "b", as: bob, ["send", dir.at("photo.jpg"), "--to", through])
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(FileTree.digest(alice.downloads + "/photo.jpg") == FileTree.digest(dir.at("photo.jpg")))

        let stats = try await command("stats")
        let connections = try #require(stats["connections"] as? [[String: Any]])
        #expect(connections.count == 2)
        #expect(connections.first?["upstream"] as? Int == 300_000)
        #expect(connections.first?["ending"] as? String == "cut (close)")
        #expect((stats["upstream"] as? Int ?? 0) > 2_300_000, "both tries' bytes are counted")
        proxy.closeInput()
        #expect(await proxy.exitStatus(within: .seconds(5)) == 0)
    }
}

/// Simulated hosts with `share receive --accept all --json --port 0` running as alice on the first
/// and bob, the sender, on the others. Call ``down()`` in a `defer`.
struct LinkLab {
    let lan: SimulatedLAN
    let dir: TemporaryDirectory
    let alice: LANUser
    let bob: LANUser
    let receiver: HostProcess
    /// The receiver's `IPV4:PORT`.
    let address: String

    init(hosts: [String], label: String) async throws {
        lan = try SimulatedLAN(hosts: hosts, prefix: SimulatedLAN.networkPrefix)
        dir = TemporaryDirectory(label)
        alice = LANUser("alice", in: dir)
        bob = LANUser("bob", in: dir)
        do {
            receiver = try lan.share(on: hosts[0], as: alice, ["receive", "--accept", "all", "--json", "--port", "0"])
            let port = try #require(try await receiver.waitForEvent("listening").object["port"] as? Int)
            address = "\(try lan.ipv4(hosts[0])):\(port)"
        } catch {
            lan.down()
            throw error
        }
    }

    func down() {
        receiver.terminate()
        lan.down()
    }
}

extension SimulatedLAN {
    /// The fault lab's proxy process (Tests/Hosts/ShareFaultProxy).
    static let faultProxy: String? = builtExecutable("ShareFaultProxy")

    /// Whether the fault lab's multi-host tests run: when the machine can, or when required (then they fail).
    static var faultLabShouldRun: Bool {
        isRequired || (missingCapabilities.isEmpty && share != nil && faultProxy != nil)
    }

    /// Why they are skipped.
    static var faultLabSkipNote: Comment {
        Comment(
            rawValue: share == nil || faultProxy == nil
                ? "build the package first (share, ShareFaultProxy)" : skipReason)
    }
}

extension LANUser {
    /// `$XDG_DATA_HOME/share/Inbox`: where the user's receiver stages transfers.
    var inbox: String { home + "/.local/share/share/Inbox" }
}
