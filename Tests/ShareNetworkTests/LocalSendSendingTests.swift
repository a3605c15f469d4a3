import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `share send` to an independent LocalSend receiver (localsendd) on a simulated LAN: by the name it
/// announces and by address, with its certificate checked before any request, and its PIN.
@Suite(.serialized, .enabled(if: SimulatedLAN.networkShouldRun, SimulatedLAN.networkSkipNote))
struct LocalSendSendingTests {
    /// `share ARGUMENTS` on `host` as `user`, on a pseudo-terminal (each word quoted for the shell).
    func terminal(on host: String, as user: LANUser, _ arguments: [String]) throws -> PseudoTerminalProcess {
        try SimulatedLAN.shareTerminal(on: host, as: user, prefix: LocalSendDiscoveryTests.prefix, arguments)
    }

    @Test func filesAndAFolderArriveIntactByNameAndByAddress() async throws {
        let dir = TemporaryDirectory("localsend-send")
        let lan = try SimulatedLAN(hosts: ["desk", "phone"], prefix: LocalSendDiscoveryTests.prefix)
        defer { lan.down() }
        let user = LANUser("ana", in: dir)
        FileTree.writeFile(dir.at("photo.jpg"), size: 3_000_000, seed: 5)
        FileTree.makeFolder(dir.at("Trip"))
        FileTree.writeText(dir.at("Trip/notes ünï.txt"), "day one\n")
        let phone = try LocalSendDaemon(on: "phone", of: lan, alias: "Ana's phone", in: dir)
        defer { phone.stop() }
        _ = try await phone.fingerprint()

        let byName = try await lan.runShare(
            on: "desk", as: user, ["send", dir.at("photo.jpg"), dir.at("Trip"), "--to", "Ana's phone", "--json"])
        #expect(byName.status == 0, "\(byName.stderr)")
        let report = try #require(jsonObject(byName.stdout))
        #expect(report["outcome"] as? String == "sent")
        #expect(report["protocol"] as? String == "localsend")
        #expect(report["files"] as? Int == 2)
        #expect((report["peer"] as? [String: Any])?["verified"] as? Bool == false)
        #expect(FileTree.digest(phone.downloads + "/photo.jpg") == FileTree.digest(dir.at("photo.jpg")))
        // localsendd keeps only the last part of a name (a LocalSend receiver's choice).
        #expect(FileTree.readText(phone.downloads + "/notes ünï.txt") == "day one\n")

        // The history says where it went, and that a LocalSend device is not verified.
        let history = try await lan.runShare(on: "desk", as: user, ["history"])
        #expect(history.stdout.contains("sent to \"Ana's phone\" (LocalSend device, not verified)  2 items"), "\(history.stdout)")
        #expect(history.stdout.contains("completed"))

        let address = "localsend://\(try lan.ipv4("phone"))"
        let byAddress = try await lan.runShare(on: "desk", as: user, ["send", dir.at("Trip/notes ünï.txt"), "--to", address])
        #expect(byAddress.status == 0, "\(byAddress.stderr)")
        #expect(byAddress.stdout.hasPrefix("Sent 1 file to \"\(try lan.ipv4("phone")):53317\" (LocalSend device, not verified)"))

        // Another device (a new certificate) at the same address: refused before any request.
        await phone.stopAndWait()
        let impostor = try LocalSendDaemon(on: "phone", of: lan, alias: "Ana's phone", home: "impostor", in: dir)
        defer { impostor.stop() }
        _ = try await impostor.fingerprint()
        let refused = try await lan.runShare(on: "desk", as: user, ["send", dir.at("photo.jpg"), "--to", address, "--json"])
        #expect(refused.status == 1)
        #expect(jsonObject(refused.stdout)?["outcome"] as? String == "identityMismatch", "\(refused.stdout)")
        #expect(refused.stderr.contains("presented another certificate"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: impostor.downloads + "/photo.jpg"), "nothing was sent")
        let records = try await lan.runShare(on: "desk", as: user, ["history", "--json"])
        let last = try #require(((try? JSONSerialization.jsonObject(with: Data(records.stdout.utf8))) as? [[String: Any]])?.last)
        #expect(last["outcome"] as? String == "failed")
        #expect((last["peer"] as? [String: Any])?["localsendFingerprint"] as? String != nil)
    }

    @Test func aPinIsAskedForAndGiven() async throws {
        let dir = TemporaryDirectory("localsend-pin")
        let lan = try SimulatedLAN(hosts: ["desk", "phone"], prefix: LocalSendDiscoveryTests.prefix)
        defer { lan.down() }
        let user = LANUser("ana", in: dir)
        FileTree.writeText(dir.at("a.txt"), "for the phone\n")
        let phone = try LocalSendDaemon(on: "phone", of: lan, alias: "Locked phone", pin: "4321", in: dir)
        defer { phone.stop() }
        _ = try await phone.fingerprint()

        let without = try await lan.runShare(on: "desk", as: user, ["send", dir.at("a.txt"), "--to", "Locked phone"])
        #expect(without.status == 1)
        #expect(without.stderr.contains("asks for a PIN, or the PIN was wrong: give it with --pin"), "\(without.stderr)")
        FileTree.writeText(dir.at("pin"), "4321\n")
        let with = try await lan.runShare(on: "desk", as: user, ["send", dir.at("a.txt"), "--to", "Locked phone", "--pin-file", dir.at("pin")])
        #expect(with.status == 0, "\(with.stderr)")
        #expect(FileTree.readText(phone.downloads + "/a.txt") == "for the phone\n")
    }

    @Test func aSendShowsProgressAndCtrlCCancelsTheSession() async throws {
        let dir = TemporaryDirectory("localsend-cancel")
        let lan = try SimulatedLAN(hosts: ["desk", "phone"], prefix: LocalSendDiscoveryTests.prefix)
        defer { lan.down() }
        let user = LANUser("ana", in: dir)
        FileTree.writeFile(dir.at("video.mp4"), size: 8_000_000, seed: 9)
        let phone = try LocalSendDaemon(on: "phone", of: lan, alias: "Ana's phone", in: dir)
        defer { phone.stop() }
        _ = try await phone.fingerprint()
        // A slow link (4 Mbit/s: 16 s for the file), so that the send is still going when Ctrl-C comes.
        try lan.limitRate("desk", bitsPerSecond: 4_000_000)

        let terminal = try self.terminal(on: "desk", as: user, ["send", dir.at("video.mp4"), "--to", "Ana's phone"])
        #expect(terminal.waitForOutput(containing: "Sending to \"Ana's phone\"", timeout: .seconds(20)), "\(terminal.output)")
        #expect(terminal.waitForOutput(containing: "%", timeout: .seconds(20)))
        terminal.interrupt()
        #expect(terminal.wait(timeout: .seconds(10)) == 130, "\(terminal.output)")
        // The device was told: it dropped the session and its partial file.
        var status = ""
        for _ in 0..<50 {
            status = try phone.status()
            if status.contains("recv_cancelled") { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(status.contains("recv_cancelled"), "\(status)")
        #expect(!FileManager.default.fileExists(atPath: phone.downloads + "/video.mp4"), "no partial file is shown as complete")
    }

    @Test func thePickerListsALocalSendDeviceAndSendsToTheRowChosen() async throws {
        let dir = TemporaryDirectory("localsend-picker")
        let lan = try SimulatedLAN(hosts: ["desk", "phone"], prefix: LocalSendDiscoveryTests.prefix)
        defer { lan.down() }
        let user = LANUser("ana", in: dir)
        FileTree.writeText(dir.at("ticket.pdf"), "%PDF-1.4 boarding pass")
        let phone = try LocalSendDaemon(on: "phone", of: lan, alias: "Ana's phone", in: dir)
        defer { phone.stop() }
        _ = try await phone.fingerprint()

        let terminal = try self.terminal(on: "desk", as: user, ["send", dir.at("ticket.pdf")])
        #expect(terminal.waitForOutput(containing: "LocalSend mobile, not verified", timeout: .seconds(20)), "\(terminal.output)")
        #expect(terminal.output.contains("Ana's phone"))
        terminal.type("\r")
        #expect(terminal.wait(timeout: .seconds(30)) == 0, "\(terminal.output)")
        #expect(terminal.output.contains("Sent 1 file to \"Ana's phone\" (LocalSend device, not verified)"), "\(terminal.output)")
        #expect(FileTree.readText(phone.downloads + "/ticket.pdf") == "%PDF-1.4 boarding pass")
    }

    @Test func aDeclineStandardInputAndARateLimitAsForShareReceivers() async throws {
        let dir = TemporaryDirectory("localsend-more")
        let lan = try SimulatedLAN(hosts: ["desk", "phone", "tablet"], prefix: LocalSendDiscoveryTests.prefix)
        defer { lan.down() }
        let user = LANUser("ana", in: dir)
        FileTree.writeFile(dir.at("data.bin"), size: 600_000)
        let phone = try LocalSendDaemon(on: "phone", of: lan, alias: "Ana's phone", in: dir)
        defer { phone.stop() }
        // Nobody at the tablet to say yes: it declines (403).
        let tablet = try LocalSendDaemon(on: "tablet", of: lan, alias: "Tablet", unattended: false, in: dir)
        defer { tablet.stop() }
        _ = try await phone.fingerprint()
        _ = try await tablet.fingerprint()

        let declined = try await lan.runShare(on: "desk", as: user, ["send", dir.at("data.bin"), "--to", "Tablet", "--json"])
        #expect(declined.status == 1)
        #expect(jsonObject(declined.stdout)?["outcome"] as? String == "declined", "\(declined.stdout)")
        #expect(declined.stderr.contains("\"Tablet\" declined the files"), "\(declined.stderr)")

        // Standard input, named.
        let piped = try lan.share(on: "desk", as: user, ["send", "-", "--name", "from a pipe.txt", "--to", "Ana's phone"])
        piped.write("typed into a pipe\n")
        piped.closeInput()
        #expect(await piped.exitStatus(within: .seconds(30)) == 0, "\(piped.transcript)")
        #expect(FileTree.readText(phone.downloads + "/from a pipe.txt") == "typed into a pipe\n")

        // 600 kB at 200 kB/s, less the first quarter second's allowance: at least two seconds.
        let start = ContinuousClock.now
        let slow = try await lan.runShare(on: "desk", as: user, ["send", dir.at("data.bin"), "--to", "Ana's phone", "--limit-rate", "200k"])
        #expect(slow.status == 0, "\(slow.stderr)")
        #expect(ContinuousClock.now - start >= .seconds(2), "the limit held")
        #expect(FileTree.digest(phone.downloads + "/data.bin") == FileTree.digest(dir.at("data.bin")))
    }

    @Test func aDeviceServingPlainHTTPIsNotSentToAndTheSenderSaysWhy() async throws {
        let dir = TemporaryDirectory("localsend-plain-http")
        let lan = try SimulatedLAN(hosts: ["desk", "phone"], prefix: LocalSendDiscoveryTests.prefix)
        defer { lan.down() }
        let user = LANUser("ana", in: dir)
        FileTree.writeText(dir.at("a.txt"), "not over plain HTTP\n")
        let phone = try LocalSendDaemon(on: "phone", of: lan, alias: "Open phone", in: dir)
        defer { phone.stop() }
        _ = try await phone.fingerprint()
        try phone.setEncryption(false)

        let sent = try await lan.runShare(
            on: "desk", as: user, ["send", dir.at("a.txt"), "--to", "Open phone", "--json"])
        #expect(sent.status == 1, "\(sent.stdout) \(sent.stderr)")
        #expect(jsonObject(sent.stdout)?["outcome"] as? String == "plainHTTP", "\(sent.stdout)")
        #expect(sent.stderr.contains("serves plain HTTP"), "\(sent.stderr)")
        #expect(!FileManager.default.fileExists(atPath: phone.downloads + "/a.txt"), "nothing was sent")
    }
}
