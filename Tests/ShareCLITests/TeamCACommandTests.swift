import Foundation
import ShareTestSupport
import Testing

/// A team CA made with Certificates/team-ca.sh in a test folder.
private struct TestTeamCA {
    let folder: String

    init(in dir: TemporaryDirectory, name: String = "Test Team") throws {
        folder = dir.at("team-ca")
        let (status, output) = TestCertificates.runScript(TestCertificates.teamCAScript, ["init", folder, name])
        guard status == 0 else { throw HarnessError(description: "team-ca.sh init failed: \(output)") }
    }

    var certificate: String { folder + "/ca.crt" }

    /// Signs `request` into `certificate` with team-ca.sh issue.
    func issue(_ request: String, to certificate: String) throws -> String {
        let (status, output) = TestCertificates.runScript(
            TestCertificates.teamCAScript, ["issue", folder, request, certificate])
        guard status == 0 else { throw HarnessError(description: "team-ca.sh issue failed: \(output)") }
        return output
    }
}

private extension TestMachine {
    /// The fingerprint `share identity --json` reports.
    var fingerprint: String? {
        jsonObject(run(["identity", "--json"]).stdout)?["fingerprint"] as? String
    }

    /// Gets a certificate from `ca` the way a user would: csr, issue, import-cert.
    func certify(by ca: TestTeamCA, in dir: TemporaryDirectory, as name: String) throws {
        let request = dir.at("\(name).csr")
        let made = run(["identity", "csr", "--out", request])
        guard made.status == 0 else { throw HarnessError(description: "csr: \(made.stderr)") }
        _ = try ca.issue(request, to: dir.at("\(name).pem"))
        let installed = run(["identity", "import-cert", dir.at("\(name).pem")])
        guard installed.status == 0 else { throw HarnessError(description: "import-cert: \(installed.stderr)") }
    }
}

/// `share identity csr|import-cert` and `share trust ca`, as a user runs them.
@Suite(.serialized) struct TeamCACommandTests {
    @Test func csrThenTeamCAThenImportKeepsTheFingerprintAndTeamMembersTrustEachOther() throws {
        let dir = TemporaryDirectory("cli-ca")
        let ca = try TestTeamCA(in: dir)
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        let aliceBefore = try #require(alice.fingerprint)
        let bobBefore = try #require(bob.fingerprint)

        // The request: PEM on stdout, or a file.
        let printed = alice.run(["identity", "csr"])
        #expect(printed.status == 0)
        #expect(printed.stdout.hasPrefix("-----BEGIN CERTIFICATE REQUEST-----\n"))
        #expect(printed.stdout.hasSuffix("-----END CERTIFICATE REQUEST-----\n"))
        let written = alice.run(["identity", "csr", "--name", "Alice's laptop", "--out", dir.at("alice.csr")])
        #expect(written.status == 0)
        #expect(written.stdout.contains("Wrote the certificate request for \"Alice's laptop\""))
        let issued = try ca.issue(dir.at("alice.csr"), to: dir.at("alice.pem"))
        #expect(issued.contains(aliceBefore.uppercased().chunked4), "the CA sees the fingerprint to compare")

        let installed = alice.run(["identity", "import-cert", dir.at("alice.pem")])
        #expect(installed.status == 0, "\(installed.stderr)")
        #expect(installed.stdout.hasPrefix("Installed the certificate issued by CN=Test Team, valid until "))
        #expect(alice.fingerprint == aliceBefore, "the fingerprint does not change")
        let identity = try #require(jsonObject(alice.run(["identity", "--json"]).stdout))
        let certificate = try #require(identity["certificate"] as? [String: Any])
        #expect(certificate["selfSigned"] as? Bool == false)
        #expect(certificate["issuer"] as? String == "CN=Test Team")

        try bob.certify(by: ca, in: dir, as: "bob")
        #expect(bob.fingerprint == bobBefore)
        for machine in [alice, bob] {
            let added = machine.run(["trust", "ca", "add", ca.certificate])
            #expect(added.status == 0, "\(added.stderr)")
            #expect(added.stdout.hasPrefix("Now trusting the team CA \"Test Team\" (valid until "))
        }

        // A real transfer over loopback: each side reports the other as CA-trusted.
        FileTree.writeText(dir.at("a.txt"), "hello\n")
        let receiver = bob.start(["receive", "--port", "0", "--dir", dir.at("inbox"), "--accept", "all", "--json"])
        defer { _ = receiver.wait(timeout: .seconds(1)) }
        let port = try #require(receiver.listeningPort())
        let first = alice.run(["send", dir.at("a.txt"), "--to", "127.0.0.1:\(port)", "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        let firstPeer = try #require(jsonObject(first.stdout)?["peer"] as? [String: Any])
        #expect(firstPeer["trust"] as? String == "ca:CN=Test Team")
        #expect(firstPeer["fingerprint"] as? String == bobBefore)
        #expect(receiver.waitForOutput(containing: "\"event\":\"received\""))
        let firstReceived = try #require(jsonLines(receiver.stdout).last { $0["event"] as? String == "received" })
        let sender = try #require(firstReceived["peer"] as? [String: Any])
        #expect(sender["trust"] as? String == "ca:CN=Test Team")
        #expect(sender["fingerprint"] as? String == aliceBefore)

        // Bob removes the CA while his receiver runs: it no longer vouches for Alice there.
        let caID = String(try #require(jsonArray(bob.run(["trust", "ca", "list", "--json"]).stdout).first?["sha256"] as? String).prefix(10))
        let removed = bob.run(["trust", "ca", "remove", caID])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout.hasPrefix("No longer trusting the team CA \"Test Team\".\n"))
        let second = alice.run(["send", dir.at("a.txt"), "--to", "127.0.0.1:\(port)", "--json"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect((jsonObject(second.stdout)?["peer"] as? [String: Any])?["trust"] as? String == "ca:CN=Test Team",
            "Alice still trusts the CA, which vouches for Bob")
        #expect(receiver.waitForOutput(containing: "a (2).txt"))
        let received = jsonLines(receiver.stdout).filter { $0["event"] as? String == "received" }
        #expect(received.count == 2)
        #expect((received.last?["peer"] as? [String: Any])?["trust"] is NSNull, "no longer CA-trusted by Bob")

        // And once Alice removes it too, her sends report Bob as not CA-trusted.
        #expect(alice.run(["trust", "ca", "remove", "test team"]).status == 0)
        let third = alice.run(["send", dir.at("a.txt"), "--to", "127.0.0.1:\(port)", "--json"])
        #expect((jsonObject(third.stdout)?["peer"] as? [String: Any])?["trust"] is NSNull)
        receiver.signal(SIGINT)
    }

    @Test func importCertRefusesACertificateForAnotherKey() throws {
        let dir = TemporaryDirectory("cli-ca-wrongkey")
        let ca = try TestTeamCA(in: dir)
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        try bob.certify(by: ca, in: dir, as: "bob")
        let aliceBefore = try #require(alice.fingerprint)
        let bobFingerprint = try #require(bob.fingerprint)

        let refused = alice.run(["identity", "import-cert", dir.at("bob.pem")])
        #expect(refused.status == 1)
        #expect(refused.stdout == "")
        #expect(refused.stderr.hasPrefix("Error: The certificate in '\(dir.at("bob.pem"))' was issued for another key (fingerprint "))
        #expect(refused.stderr.contains(bobFingerprint.uppercased().chunked4))
        #expect(refused.stderr.contains("not for this machine's key (fingerprint \(aliceBefore.uppercased().chunked4))"))
        #expect(refused.stderr.contains("Nothing was changed."))
        let identity = try #require(jsonObject(alice.run(["identity", "--json"]).stdout))
        #expect(identity["fingerprint"] as? String == aliceBefore)
        #expect((identity["certificate"] as? [String: Any])?["selfSigned"] as? Bool == true)

        let notACertificate = alice.run(["identity", "import-cert", dir.at("bob.csr")])
        #expect(notACertificate.status == 1)
        #expect(notACertificate.stderr.contains("is not a PEM certificate"))
        let missing = alice.run(["identity", "import-cert", dir.at("nothing.pem")])
        #expect(missing.status == 1)
        #expect(missing.stderr == "Error: cannot read a certificate '\(dir.at("nothing.pem"))': no such file\n")
    }

    @Test func trustCARefusesWhatCannotBeATeamCA() throws {
        let dir = TemporaryDirectory("cli-ca-refuse")
        let ca = try TestTeamCA(in: dir)
        let alice = TestMachine("alice", in: dir)
        try alice.certify(by: ca, in: dir, as: "alice")

        let node = alice.run(["trust", "ca", "add", dir.at("alice.pem")])
        #expect(node.status == 1)
        #expect(node.stderr.contains("is not a CA certificate: its basic constraints do not say CA:TRUE"))
        let withKey = dir.at("bundle.pem")
        FileTree.writeText(withKey, try String(contentsOfFile: ca.certificate, encoding: .utf8)
            + String(contentsOfFile: ca.folder + "/ca.key", encoding: .utf8))
        let key = alice.run(["trust", "ca", "add", withKey])
        #expect(key.status == 1)
        #expect(key.stderr.contains("contains a private key"))
        let expired = dir.at("expired-ca.crt")
        FileTree.writeText(expired, try TestCertificates.pem("expired-ca/ca.crt"))
        let old = alice.run(["trust", "ca", "add", expired])
        #expect(old.status == 1)
        #expect(old.stderr == "Error: The team CA \"share expired team CA\" expired on 2021-01-01; it would vouch for no one. Ask whoever runs it for a new CA certificate.\n")

        #expect(alice.run(["trust", "ca", "list"]).stdout == "No team CA is trusted. Add one with 'share trust ca add FILE'.\n")
        #expect(alice.run(["trust", "ca", "list", "--json"]).stdout == "[]\n")
        let none = alice.run(["trust", "ca", "remove", "abc"])
        #expect(none.status == 1)
        #expect(none.stderr == "Error: No team CA matches 'abc': no team CA is trusted on this machine.\n")

        let usage = alice.run(["trust", "ca", "add"])
        #expect(usage.status == 64)
        #expect(usage.stderr == """
            Error: Missing expected argument '<file>'
            Usage: share trust ca add <file> [--json]
              See 'share trust ca add --help' for more information.

            """)
        let unknown = alice.run(["trust", "ca", "delete", "x"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.hasPrefix("Error: Unknown subcommand 'delete'"))
    }

    @Test func trustCAListShowsEachCA() throws {
        let dir = TemporaryDirectory("cli-ca-list")
        let ca = try TestTeamCA(in: dir, name: "Zeta Team")
        let alice = TestMachine("alice", in: dir)
        let other = dir.at("other.crt")
        FileTree.writeText(other, try TestCertificates.pem("ca/ca.crt"))
        #expect(alice.run(["trust", "ca", "add", ca.certificate]).status == 0)
        #expect(alice.run(["trust", "ca", "add", other]).status == 0)
        let again = alice.run(["trust", "ca", "add", other])
        #expect(again.stdout.hasPrefix("The team CA \"share test team CA\" was already trusted.\n"))

        let listed = try jsonArray(alice.run(["trust", "ca", "list", "--json"]).stdout)
        #expect(listed.map { $0["name"] as? String } == ["share test team CA", "Zeta Team"])
        #expect(listed.map { $0["status"] as? String } == ["valid", "valid"])
        #expect(listed.allSatisfy { ($0["sha256"] as? String)?.count == 64 })
        let text = alice.run(["trust", "ca", "list"]).stdout.split(separator: "\n")
        #expect(text.count == 3)
        #expect(text.first == "FINGERPRINT       NAME                EXPIRES     STATUS")
        #expect(text.dropFirst().allSatisfy { $0.hasSuffix("  valid") })
    }
}

private extension String {
    /// `ABCD EF01 …`: the grouped form `share identity` prints.
    var chunked4: String {
        var out = ""
        for (index, character) in enumerated() {
            if index > 0 && index % 4 == 0 { out += " " }
            out.append(character)
        }
        return out
    }
}

/// Parses a JSON array of objects.
private func jsonArray(_ text: String) throws -> [[String: Any]] {
    try #require((try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [[String: Any]])
}
