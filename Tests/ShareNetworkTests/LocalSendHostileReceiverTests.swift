import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `share send` to a LocalSend receiver that answers badly (Tests/Hosts/fake-localsend.py on a
/// simulated host): each answer ends the send with a clear error, at once or within the time set.
@Suite(.serialized, .enabled(if: SimulatedLAN.networkShouldRun, SimulatedLAN.networkSkipNote))
struct LocalSendHostileReceiverTests {
    static let fake = URL(filePath: SimulatedLAN.script).deletingLastPathComponent().appending(path: "fake-localsend.py").path

    @Test func badAnswersEndTheSendWithAClearError() async throws {
        let dir = TemporaryDirectory("localsend-hostile")
        let lan = try SimulatedLAN(hosts: ["desk", "phone"], prefix: LocalSendDiscoveryTests.prefix)
        defer { lan.down() }
        let user = LANUser("ana", in: dir)
        FileTree.writeText(dir.at("a.txt"), "hello\n")
        let made = try Subprocess(
            executable: "/usr/bin/openssl",
            arguments: [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                "-subj", "/CN=fake", "-keyout", dir.at("key.pem"), "-out", dir.at("cert.pem"),
            ],
            environment: ProcessInfo.processInfo.environment, stdinPipe: false)
        _ = made.readToEnd()
        #expect(made.reap(block: true) == 0)
        let address = "localsend://\(try lan.ipv4("phone"))"

        let cases: [(mode: String, outcome: String, message: String)] = [
            ("huge-answer", "failed", "answered something that is not HTTP: the HTTP body is longer than the 1048576 bytes share reads"),
            ("foreign-token", "failed", "answered prepare-upload with a token for a file that was not offered"),
            ("not-http", "failed", "answered something that is not HTTP"),
            ("slow-answer", "noAnswer", "did not answer within 2 s; nothing more was sent"),
        ]
        for (mode, outcome, message) in cases {
            let server = try lan.run(
                on: "phone", "/usr/bin/python3",
                [Self.fake, "--cert", dir.at("cert.pem"), "--key", dir.at("key.pem"), "--mode", mode], label: "fake LocalSend \(mode)")
            _ = try await server.waitForLine("serving", within: .seconds(10)) { $0 == "serving" }
            let started = ContinuousClock.now
            let sent = try lan.run(
                on: "desk", try #require(SimulatedLAN.share), ["send", dir.at("a.txt"), "--to", address, "--json"],
                environment: user.environment.merging(["SHARE_PROMPT_TIMEOUT": "2"]) { $1 }, label: "share send (\(mode))",
                separateStandardError: true)
            let status = await sent.exitStatus(within: .seconds(30))
            try await Task.sleep(for: .milliseconds(50))
            #expect(status == 1, "\(mode): \(sent.transcript)")
            #expect(ContinuousClock.now - started < .seconds(15), "\(mode) ended in time")
            let line = sent.lines.compactMap(jsonObject).first
            #expect(line?["outcome"] as? String == outcome, "\(mode): \(sent.transcript)")
            #expect(sent.errorLines.joined().contains(message), "\(mode): \(sent.errorLines)")
            server.terminate()
            _ = await server.exitStatus(within: .seconds(10))
        }
    }
}
