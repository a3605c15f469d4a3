import Foundation
import ShareTestSupport
import Testing

/// `share receive --localsend` against a LocalSend sender that misbehaves (Tests/Hosts/fake-localsend-sender.py
/// on a simulated host): bad names, huge and oversized offers, a second session, uploads from another
/// address, bodies shorter or longer than offered, damaged content, a session that stands still, a
/// cancel. Each gets a clear answer, and nothing partial is ever placed.
@Suite(.serialized, .enabled(if: SimulatedLAN.networkShouldRun, SimulatedLAN.networkSkipNote))
struct LocalSendHostileSenderTests {
    static let fake = URL(filePath: SimulatedLAN.script).deletingLastPathComponent().appending(path: "fake-localsend-sender.py").path

    /// Runs the fake sender on `host` to the end; what it printed, parsed.
    func fake(
        _ lan: SimulatedLAN, on host: String, _ arguments: [String], environment: [String: String] = [:]
    ) async throws -> (status: Int, body: String) {
        let process = try lan.run(on: host, "/usr/bin/python3", [Self.fake] + arguments, environment: environment, label: "fake sender")
        _ = await process.exitStatus(within: .seconds(60))
        try await Task.sleep(for: .milliseconds(50))
        let object = jsonObject(process.lines.last ?? "") ?? [:]
        return (object["status"] as? Int ?? -2, object["body"] as? String ?? process.transcript)
    }

    func file(_ id: String, _ name: String, size: Int, sha256: String? = nil) -> String {
        var fields: [String: Any] = ["id": id, "fileName": name, "size": size]
        if let sha256 { fields["sha256"] = sha256 }
        let data = try! JSONSerialization.data(withJSONObject: [id: fields])
        return String(decoding: data, as: UTF8.self)
    }

    func tokens(_ body: String) -> (session: String, files: [String: String]) {
        let object = jsonObject(body) ?? [:]
        return (object["sessionId"] as? String ?? "", object["files"] as? [String: String] ?? [:])
    }

    @Test func hostileSendersGetClearAnswersAndNothingPartialIsPlaced() async throws {
        let dir = TemporaryDirectory("localsend-hostile-sender")
        let lan = try SimulatedLAN(hosts: ["desk", "phone", "tablet"], prefix: LocalSendDiscoveryTests.prefix)
        defer { lan.down() }
        let user = LANUser("ana", in: dir)
        let receiver = try lan.run(
            on: "desk", try #require(SimulatedLAN.share),
            ["receive", "--json", "--port", "0", "--localsend", "--accept", "everyone"],
            environment: user.environment.merging(["SHARE_LOCALSEND_STALL": "2"]) { $1 }, label: "share receive",
            separateStandardError: true)
        defer { receiver.terminate() }
        try await receiver.waitForEvent("listening")
        let desk = "\(try lan.ipv4("desk")):53317"
        FileTree.writeText(dir.at("five.txt"), "12345")

        // Names that are not safe, and offers too big to read or to store.
        for name in ["../escape.txt", "a\u{1}b.txt", "/etc/passwd"] {
            let refused = try await fake(lan, on: "phone", ["prepare", desk, file("1", name, size: 5)])
            #expect(refused.status == 400, "\(name): \(refused)")
            #expect(refused.body.contains("not a safe name"), "\(refused.body)")
        }
        let huge = try await fake(lan, on: "phone", ["prepare", desk, file("1", "huge.bin", size: 1 << 50)])
        #expect(huge.status == 400 || huge.status == 507, "\(huge)")
        // More files than share takes at once (30,000), in a request small enough to be read.
        let many = (0...30_000).map { #""f\#($0)":{"id":"f\#($0)","fileName":"f\#($0)","size":0}"# }.joined(separator: ",")
        FileTree.writeText(
            dir.at("many.json"),
            #"{"info":{"alias":"x","version":"2.1","fingerprint":"F","port":53317,"protocol":"https"},"files":{\#(many)}}"#)
        let tooMany = try await fake(lan, on: "phone", ["prepare", desk, "@" + dir.at("many.json")])
        #expect(tooMany.status == 400, "\(tooMany.status)")
        #expect(tooMany.body.contains("30001 files, more than the 30000"), "\(tooMany.body)")
        FileTree.writeText(dir.at("big.json"), "{\"info\":{},\"files\":{\"x\":\"" + String(repeating: "a", count: 9 << 20) + "\"}}")
        let oversized = try await fake(lan, on: "phone", ["prepare", desk, "@" + dir.at("big.json")])
        #expect(oversized.status == 413 || oversized.status == 400, "\(oversized.status)")
        #expect(oversized.body.contains("longer than"), "\(oversized.body)")

        // One session at a time; uploads only from the address that prepared it.
        let first = try await fake(lan, on: "phone", ["prepare", desk, file("f", "five.txt", size: 5)])
        #expect(first.status == 200, "\(first)")
        let (session, files) = tokens(first.body)
        let busy = try await fake(lan, on: "tablet", ["prepare", desk, file("g", "other.txt", size: 5)])
        #expect(busy.status == 409, "\(busy)")
        let stranger = try await fake(lan, on: "tablet", ["upload", desk, session, "f", files["f"] ?? "", dir.at("five.txt")])
        #expect(stranger.status == 403, "\(stranger)")
        // A body longer than the size offered is refused before it is read; the session ends.
        let longer = try await fake(lan, on: "phone", ["upload", desk, session, "f", files["f"] ?? "", dir.at("five.txt"), "6"])
        #expect(longer.status == 400, "\(longer)")
        #expect(longer.body.contains("offered with 5 bytes"), "\(longer.body)")
        try await receiver.waitForEvent("failed")

        // A body cut short: the session fails, nothing is placed, and the next sender gets in.
        let second = try await fake(lan, on: "phone", ["prepare", desk, file("f", "five.txt", size: 5)])
        let (session2, files2) = tokens(second.body)
        _ = try await fake(lan, on: "phone", ["upload", desk, session2, "f", files2["f"] ?? "", dir.at("five.txt"), "5", "2"])
        let cut = try await receiver.waitForEvent("failed", after: 0) { ($0["error"] as? String)?.contains("stopped after") == true }
        #expect((cut.object["error"] as? String)?.contains("'five.txt'") == true)

        // Content that does not match the SHA-256 the sender gave: 422, nothing kept.
        let wrong = String(repeating: "00", count: 32)
        let third = try await fake(lan, on: "phone", ["prepare", desk, file("f", "five.txt", size: 5, sha256: wrong)])
        let (session3, files3) = tokens(third.body)
        let damaged = try await fake(lan, on: "phone", ["upload", desk, session3, "f", files3["f"] ?? "", dir.at("five.txt")])
        #expect(damaged.status == 422, "\(damaged)")
        #expect(damaged.body.contains("arrived damaged"))

        // A sender that drips its upload (a byte every 0.2 s) is ended once the window (2 s here) shows it.
        FileTree.writeText(dir.at("drip.txt"), String(repeating: "d", count: 200))
        let dripping = try await fake(lan, on: "phone", ["prepare", desk, file("d", "drip.txt", size: 200)])
        let (session4, files4) = tokens(dripping.body)
        let dripped = try await fake(
            lan, on: "phone", ["upload", desk, session4, "d", files4["d"] ?? "", dir.at("drip.txt")],
            environment: ["FAKE_SENDER_DRIP": "0.2"])
        #expect(dripped.status != 200, "\(dripped)")
        try await receiver.waitForEvent("failed", after: 0) { ($0["error"] as? String)?.contains("too slow") == true }

        // A session that stands still is released (2 s here), and a cancelled one ends at once.
        let stalled = try await fake(lan, on: "phone", ["prepare", desk, file("f", "five.txt", size: 5)])
        #expect(stalled.status == 200)
        try await receiver.waitForEvent("failed", after: 0, within: .seconds(10)) {
            ($0["error"] as? String)?.contains("sent nothing for 2 s") == true
        }
        let fourth = try await fake(lan, on: "tablet", ["prepare", desk, file("f", "five.txt", size: 5)])
        #expect(fourth.status == 200, "the stalled session was released: \(fourth)")
        let cancelled = try await fake(lan, on: "tablet", ["cancel", desk, tokens(fourth.body).session])
        #expect(cancelled.status == 200)
        try await receiver.waitForEvent("failed", after: 0) { ($0["error"] as? String)?.contains("cancelled") == true }

        #expect(!FileManager.default.fileExists(atPath: user.downloads + "/five.txt"), "nothing partial was placed")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: user.downloads))?.isEmpty ?? true)

        // And an honest upload still goes through.
        let honest = try await fake(lan, on: "phone", ["prepare", desk, file("f", "five.txt", size: 5)])
        let (session5, files5) = tokens(honest.body)
        let done = try await fake(lan, on: "phone", ["upload", desk, session5, "f", files5["f"] ?? "", dir.at("five.txt")])
        #expect(done.status == 200, "\(done)")
        try await receiver.waitForEvent("received")
        #expect(FileTree.readText(user.downloads + "/five.txt") == "12345")
    }

    @Test func aSenderThatStopsWaitingWithdrawsTheQuestion() async throws {
        let dir = TemporaryDirectory("localsend-withdrawn")
        let lan = try SimulatedLAN(hosts: ["desk", "phone", "tablet"], prefix: LocalSendDiscoveryTests.prefix)
        defer { lan.down() }
        let user = LANUser("ana", in: dir)
        let terminal = try SimulatedLAN.shareTerminal(
            on: "desk", as: user, prefix: LocalSendDiscoveryTests.prefix, ["receive", "--localsend", "--port", "0"])
        defer { terminal.interrupt() }
        #expect(terminal.waitForOutput(containing: "Also answering LocalSend senders", timeout: .seconds(15)), "\(terminal.output)")
        let desk = "\(try lan.ipv4("desk")):53317"
        // The sender gives up after 2 s: the question is withdrawn at once, not left for 5 minutes.
        let gaveUp = try await fake(lan, on: "phone", ["prepare", desk, file("f", "a.txt", size: 1)], environment: ["FAKE_SENDER_TIMEOUT": "2"])
        #expect(gaveUp.status == -1, "\(gaveUp)")
        #expect(terminal.waitForOutput(containing: "stopped waiting", timeout: .seconds(10)), "\(terminal.output)")
        // And the next sender is asked (nothing holds the session).
        let mark = terminal.output.utf8.count
        let next = Task.detached { try await self.fake(lan, on: "tablet", ["prepare", desk, self.file("g", "b.txt", size: 1)]) }
        #expect(terminal.waitForOutput(containing: "Accept?", after: mark, timeout: .seconds(10)), "\(terminal.output)")
        terminal.type("n\r")
        #expect(try await next.value.status == 403)
        // Ctrl-C while a LocalSend sender waits for the answer: the question is withdrawn and share ends.
        let mark2 = terminal.output.utf8.count
        let last = Task.detached { try await self.fake(lan, on: "tablet", ["prepare", desk, self.file("h", "c.txt", size: 1)]) }
        #expect(terminal.waitForOutput(containing: "Accept?", after: mark2, timeout: .seconds(10)), "\(terminal.output)")
        terminal.interrupt()
        #expect(terminal.wait(timeout: .seconds(10)) == 130, "\(terminal.output)")
        #expect(try await last.value.status == 403)
    }
}
