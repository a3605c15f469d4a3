// Team CAs: CA-issued identities in TLS, the trust-anchor checks, CSRs and certificate import, with the
// certificates of Certificates/make-test-certs.sh.

import Foundation
import ShareTestSupport
import Testing

@testable import ShareTLS

/// Identities and CAs made from the generated certificates.
enum TeamCA {
    static func identity(key: String, certificate: String, chain: [String] = []) throws -> Identity {
        let certificates = try ([certificate] + chain).map(TestCertificates.pem).joined()
        return try Identity.fromPEM(key: TestCertificates.pem(key), certificates: certificates)
    }

    static func authority(_ name: String) throws -> CACertificate {
        try CACertificate.parse(pem: TestCertificates.pem(name), source: name)
    }

    static func anchors(_ names: String...) throws -> TrustAnchors {
        try TrustAnchors(names.map(authority))
    }

    /// node.key with the team CA's certificate, and the second team node.
    static func node() throws -> Identity { try identity(key: "node.key", certificate: "node.crt") }
    static func peer() throws -> Identity { try identity(key: "peer.key", certificate: "peer.crt") }
}

@Suite("Team CA")
struct TeamCATests {
    // MARK: TLS

    @Test("a peer whose certificate the team CA issued is CA-trusted, seen from the server and from the client")
    func caTrustedBothWays() async throws {
        let anchors = try TeamCA.anchors("ca/ca.crt")
        let ca = try TeamCA.authority("ca/ca.crt").info
        let server = try TeamCA.node()
        let client = try TeamCA.peer()
        let (serverSide, clientSide) = try await converse(
            server: .server(identity: server, anchors: anchors), client: .client(identity: client, anchors: anchors),
            server: { describePeer($0) }, client: { describePeer($0) })
        let seenByServer = try serverSide.get()
        let seenByClient = try clientSide.get()
        #expect(seenByServer.peerTrustedBy == ca)
        #expect(seenByClient.peerTrustedBy == ca)
        #expect(ca.subject == "CN=share test team CA")
        #expect(ca.commonName == "share test team CA")
        // The identity is still the key.
        #expect(seenByServer.peerFingerprint == client.fingerprint)
        #expect(seenByClient.peerFingerprint == server.fingerprint)
        #expect(!server.certificateIsSelfSigned)
        #expect(server.certificateIssuer == "CN=share test team CA")
    }

    @Test("without the CA added, the same peers connect but are not CA-trusted (issuer unknown: the pin decides)")
    func caNotAdded() async throws {
        let (serverSide, clientSide) = try await converse(
            server: .server(identity: TeamCA.node()), client: .client(identity: TeamCA.peer()),
            server: { describePeer($0) }, client: { describePeer($0) })
        #expect(try serverSide.get().peerTrustedBy == nil)
        #expect(try clientSide.get().peerTrustedBy == nil)
        #expect(try serverSide.get().peerCATrustProblem == nil)
    }

    @Test(
        "a peer that is not the team's is accepted but never CA-trusted, on either side",
        arguments: [
            ("node.key", "wrong-ca.crt"),  // another CA with the team CA's very name
            ("node.key", "self-signed.crt"),  // made with the openssl command
            ("node.key", "expired-ca-node.crt"),  // from a CA nobody added (and expired)
        ])
    func notTheTeams(key: String, certificate: String) async throws {
        let anchors = try TeamCA.anchors("ca/ca.crt")
        let stranger = try TeamCA.identity(key: key, certificate: certificate)
        let member = try TeamCA.peer()
        let (server1, client1) = try await converse(
            server: .server(identity: member, anchors: anchors), client: .client(identity: stranger, anchors: anchors),
            server: { describePeer($0) }, client: { describePeer($0) })
        #expect(try server1.get().peerTrustedBy == nil, "server judging a \(certificate) client")
        #expect(try server1.get().peerFingerprint == stranger.fingerprint)
        #expect(try client1.get().peerTrustedBy != nil, "the member is still CA-trusted")

        let (server2, client2) = try await converse(
            server: .server(identity: stranger, anchors: anchors), client: .client(identity: member, anchors: anchors),
            server: { describePeer($0) }, client: { describePeer($0) })
        #expect(try client2.get().peerTrustedBy == nil, "client judging a \(certificate) server")
        #expect(try server2.get().peerTrustedBy != nil)
    }

    @Test("share's own self-signed identity is never CA-trusted")
    func shareSelfSigned() async throws {
        let anchors = try TeamCA.anchors("ca/ca.crt")
        let (server, client) = try await converse(
            server: .server(identity: Identities.server, anchors: anchors),
            client: .client(identity: Identities.client, anchors: anchors),
            server: { describePeer($0) }, client: { describePeer($0) })
        #expect(try server.get().peerTrustedBy == nil)
        #expect(try client.get().peerTrustedBy == nil)
    }

    @Test("a CA-issued certificate that has expired is refused, whether or not its CA was added, on either side")
    func expiredLeaf() async throws {
        let expired = try TeamCA.identity(key: "node.key", certificate: "expired.crt")
        let notAfter = Date(timeIntervalSince1970: 1_577_923_200)  // 2020-01-02
        #expect(expired.notAfter == notAfter)
        for anchors in [try TeamCA.anchors("ca/ca.crt"), TrustAnchors.none] {
            let (server1, client1) = try await converse(
                server: .server(identity: TeamCA.peer(), anchors: anchors),
                client: .client(identity: expired, anchors: anchors), client: readOnce)
            #expect(tlsError(server1) == .peerCertificateRejected(.expired(notAfter: notAfter)))
            #expect(tlsError(client1) == .peerRefusedOurCertificate(.certificateExpired))

            let (server2, client2) = try await converse(
                server: .server(identity: expired, anchors: anchors),
                client: .client(identity: TeamCA.peer(), anchors: anchors))
            #expect(tlsError(client2) == .peerCertificateRejected(.expired(notAfter: notAfter)))
            #expect(tlsError(server2) == .peerRefusedOurCertificate(.certificateExpired))
        }
    }

    @Test("a CA-issued certificate that is not valid yet is refused, whether or not its CA was added, on either side")
    func notYetValidLeaf() async throws {
        let early = try TeamCA.identity(key: "node.key", certificate: "not-yet-valid.crt")
        let notBefore = Date(timeIntervalSince1970: 4_070_908_800)  // 2099-01-01
        #expect(early.notBefore == notBefore)
        for anchors in [try TeamCA.anchors("ca/ca.crt"), TrustAnchors.none] {
            let (server1, client1) = try await converse(
                server: .server(identity: TeamCA.peer(), anchors: anchors),
                client: .client(identity: early, anchors: anchors), client: readOnce)
            #expect(tlsError(server1) == .peerCertificateRejected(.notYetValid(notBefore: notBefore)))
            #expect(tlsError(client1) == .peerRefusedOurCertificate(.badCertificate))

            let (server2, client2) = try await converse(
                server: .server(identity: early, anchors: anchors),
                client: .client(identity: TeamCA.peer(), anchors: anchors))
            #expect(tlsError(client2) == .peerCertificateRejected(.notYetValid(notBefore: notBefore)))
            #expect(tlsError(server2) == .peerRefusedOurCertificate(.badCertificate))
        }
    }

    @Test("a CA whose own certificate expired vouches for no one; its nodes still connect, identified by their key")
    func expiredCA() async throws {
        let anchors = try TeamCA.anchors("ca/ca.crt", "expired-ca/ca.crt")
        let orphan = try TeamCA.identity(key: "node.key", certificate: "expired-ca-node.crt")
        let (server, client) = try await converse(
            server: .server(identity: TeamCA.peer(), anchors: anchors), client: .client(identity: orphan, anchors: anchors),
            server: { describePeer($0) }, client: { describePeer($0) })
        let seen = try server.get()
        #expect(seen.peerTrustedBy == nil)
        #expect(seen.peerFingerprint == orphan.fingerprint)
        #expect(seen.peerCATrustProblem?.contains("expired") == true, "\(String(describing: seen.peerCATrustProblem))")
        #expect(seen.peerCATrustProblem?.contains("share expired team CA") == true)
        #expect(try client.get().peerTrustedBy?.commonName == "share test team CA")
    }

    @Test("a node that presents its chain (the CA certificate after its own) works with and without the CA added")
    func presentedChain() async throws {
        let chained = try TeamCA.identity(key: "node.key", certificate: "node.crt", chain: ["ca/ca.crt"])
        #expect(chained.chain.count == 1)
        for anchors in [try TeamCA.anchors("ca/ca.crt"), TrustAnchors.none] {
            let (server, client) = try await converse(
                server: .server(identity: TeamCA.peer(), anchors: anchors),
                client: .client(identity: chained, anchors: anchors),
                server: { describePeer($0) }, client: { describePeer($0) })
            #expect(try server.get().peerTrustedBy?.commonName == (anchors.isEmpty ? nil : "share test team CA"))
            #expect(try server.get().peerFingerprint == chained.fingerprint)
            _ = try client.get()
        }
    }

    @Test("with team CAs added, a client without a certificate and a TLS 1.2-only peer are refused as before")
    func oldRefusalsWithAnchors() async throws {
        let anchors = try TeamCA.anchors("ca/ca.crt")
        let (server1, client1) = try await converse(
            server: .server(identity: TeamCA.node(), anchors: anchors), client: .clientWithoutCertificate(),
            client: readOnce)
        #expect(tlsError(server1) == .peerPresentedNoCertificate)
        #expect(tlsError(client1) == .peerRefusedOurCertificate(.certificateRequired))

        let (server2, client2) = try await converse(
            server: .server(identity: TeamCA.node(), anchors: anchors),
            client: .tls12Only(server: false, identity: TeamCA.peer(), anchors: anchors))
        #expect(tlsError(server2) == .peerDoesNotSpeakTLS13(.olderTLSVersion))
        #expect(tlsError(client2) == .peerDoesNotSpeakTLS13(.olderTLSVersion))

        let (server3, client3) = try await converse(
            server: .tls12Only(server: true, identity: TeamCA.node(), anchors: anchors),
            client: .client(identity: TeamCA.peer(), anchors: anchors))
        #expect(tlsError(client3) == .peerDoesNotSpeakTLS13(.olderTLSVersion))
        #expect(tlsError(server3) == .peerDoesNotSpeakTLS13(.olderTLSVersion))
    }

    // MARK: Which certificates may be a team CA

    @Test("the team CA certificate is accepted as an anchor, named by the SHA-256 of its certificate")
    func acceptedAuthority() throws {
        let ca = try TeamCA.authority("ca/ca.crt")
        let der = try #require(runOpenSSLWithInput(["x509", "-outform", "DER"], TestCertificates.pem("ca/ca.crt")))
        #expect(ca.info.fingerprint.bytes == SHA256.hash([UInt8](der)))
        #expect(ca.info.isValid())
        #expect(ca.pem.hasPrefix("-----BEGIN CERTIFICATE-----"))
        let twice = try TrustAnchors([ca, TeamCA.authority("ca/ca.crt")])
        #expect(twice.authorities.count == 1)
    }

    @Test(
        "certificates that must never vouch for anyone are refused as CAs, with the reason",
        arguments: [
            ("not-a-ca.crt", "CA:TRUE"),
            ("no-certsign-ca.crt", "keyCertSign"),
            ("node.crt", "CA:TRUE"),
            ("self-signed.crt", "CA:TRUE"),
        ])
    func refusedAuthority(name: String, reason: String) throws {
        let error = #expect(throws: TrustAnchorError.self) { try TeamCA.authority(name) }
        guard case .notACertificateAuthority(let source, _, let why) = error else {
            Issue.record("expected .notACertificateAuthority, got \(String(describing: error))")
            return
        }
        #expect(source == name)
        #expect(why.contains(reason), "\(why)")
        #expect(error?.description.contains("not a CA certificate") == true)
    }

    @Test("a file with the CA's key, several certificates, or no certificate is refused as a CA")
    func refusedCAFiles() throws {
        let certificate = try TestCertificates.pem("ca/ca.crt")
        let key = try TestCertificates.pem("ca/ca.key")
        #expect(throws: TrustAnchorError.containsPrivateKey(source: "bundle.pem")) {
            try CACertificate.parse(pem: certificate + key, source: "bundle.pem")
        }
        #expect(throws: TrustAnchorError.severalCertificates(source: "two.pem", count: 2)) {
            try CACertificate.parse(pem: certificate + TestCertificates.pem("wrong-ca/ca.crt"), source: "two.pem")
        }
        let error = #expect(throws: TrustAnchorError.self) { try CACertificate.parse(pem: "hello\n", source: "x") }
        guard case .notACertificate = error else {
            Issue.record("expected .notACertificate, got \(String(describing: error))")
            return
        }
    }

    // MARK: Certificate signing requests and import

    @Test("CSR round trip: the request verifies, the team CA signs it, import keeps the key and the fingerprint")
    func csrRoundTrip() throws {
        let root = TemporaryFolder()
        let folder = root.child("config")
        let original = try Identity.loadOrCreate(in: folder)
        let request = try original.certificateSigningRequest(subjectName: "Bob's Desk é")
        #expect(request.hasPrefix("-----BEGIN CERTIFICATE REQUEST-----\n"))
        try write(Array(request.utf8), to: root.child("bob.csr"))
        let subject = try #require(runOpenSSL(["req", "-in", root.child("bob.csr"), "-noout", "-verify", "-subject", "-nameopt", "utf8"]))
        #expect(String(decoding: subject, as: UTF8.self).contains("Bob's Desk é"))
        let (fingerprintStatus, keyFingerprint) = TestCertificates.runScript(
            TestCertificates.teamCAScript, ["fingerprint", root.child("bob.csr")])
        #expect(fingerprintStatus == 0)
        #expect(keyFingerprint.trimmingCharacters(in: .whitespacesAndNewlines) == original.fingerprint.grouped)

        let (initStatus, initOutput) = TestCertificates.runScript(
            TestCertificates.teamCAScript, ["init", root.child("ca"), "Bob's Team"])
        #expect(initStatus == 0, "\(initOutput)")
        let (issueStatus, issueOutput) = TestCertificates.runScript(
            TestCertificates.teamCAScript, ["issue", root.child("ca"), root.child("bob.csr"), root.child("bob.pem"), "10"])
        #expect(issueStatus == 0, "\(issueOutput)")
        #expect(issueOutput.contains(original.fingerprint.grouped), "the CA sees the fingerprint to check")

        let issued = try String(contentsOfFile: root.child("bob.pem"), encoding: .utf8)
        let imported = try Identity.importCertificate(pem: issued, chain: nil, in: folder)
        #expect(imported.fingerprint == original.fingerprint)
        #expect(!imported.certificateIsSelfSigned)
        #expect(imported.certificateIssuer == "CN=Bob's Team")
        #expect(contents(folder + "/identity.key") != nil)
        #expect(mode(folder + "/identity.crt") == 0o644)

        // Ten days left is inside the 30-day renewal window: a CA-issued certificate is kept as it is.
        let reloaded = try Identity.loadOrCreate(in: folder)
        #expect(reloaded.fingerprint == original.fingerprint)
        #expect(reloaded.certificatePEM == imported.certificatePEM)
        #expect(reloaded.needsRenewal(at: Date()))
    }

    @Test("import with a chain stores it after the certificate, and loading presents it again")
    func importWithChain() throws {
        let root = TemporaryFolder()
        try installNodeKey(in: root.path)
        let identity = try Identity.importCertificate(
            pem: TestCertificates.pem("node.crt"), chain: [TestCertificates.pem("ca/ca.crt")], in: root.path)
        #expect(identity.chain.count == 1)
        let stored = String(decoding: contents(root.child("identity.crt")) ?? [], as: UTF8.self)
        #expect(stored.components(separatedBy: "-----BEGIN CERTIFICATE-----").count == 3)
        let reloaded = try Identity.loadOrCreate(in: root.path)
        #expect(reloaded.chain.count == 1)
        #expect(reloaded.certificatePEM == identity.certificatePEM)
    }

    @Test(
        "import refuses a certificate that would not work, names why, and changes nothing",
        arguments: [
            ("wrong-key.crt", nil, "for another key"),
            ("expired.crt", nil, "expired on 2020-01-02"),
            ("not-yet-valid.crt", nil, "not valid until 2099-01-01"),
            ("ca/ca.crt", nil, "for another key"),
            ("node.crt", "wrong-ca/ca.crt", "does not belong"),
        ] as [(String, String?, String)])
    func importRefused(certificate: String, chain: String?, message: String) throws {
        let root = TemporaryFolder()
        try installNodeKey(in: root.path)
        let before = try Identity.loadOrCreate(in: root.path)
        let certificateBefore = contents(root.child("identity.crt"))
        let error = #expect(throws: IdentityError.self) {
            try Identity.importCertificate(
                pem: TestCertificates.pem(certificate), chain: try chain.map { [try TestCertificates.pem($0)] },
                in: root.path)
        }
        #expect(error?.description.contains(message) == true, "\(String(describing: error))")
        #expect(error?.description.contains("Nothing was changed") == true)
        #expect(contents(root.child("identity.crt")) == certificateBefore)
        #expect(try Identity.loadOrCreate(in: root.path).fingerprint == before.fingerprint)
    }

    @Test("a certificate for another key names both fingerprints")
    func wrongKeyMessage() throws {
        let root = TemporaryFolder()
        try installNodeKey(in: root.path)
        let mine = try Identity.loadOrCreate(in: root.path).fingerprint
        let theirs = try TeamCA.identity(key: "other.key", certificate: "wrong-key.crt").fingerprint
        #expect(
            throws: IdentityError.certificateForAnotherKey(
                source: "The certificate", certificateKey: theirs, identityKey: mine)
        ) {
            try Identity.importCertificate(pem: TestCertificates.pem("wrong-key.crt"), chain: nil, in: root.path)
        }
    }

    @Test("import without an identity, or of something that is not a certificate, is a clear error")
    func importNothing() throws {
        let root = TemporaryFolder()
        #expect(throws: IdentityError.noIdentity(keyPath: root.path + "/identity.key")) {
            try Identity.importCertificate(pem: TestCertificates.pem("node.crt"), chain: nil, in: root.path)
        }
        try installNodeKey(in: root.path)
        let error = #expect(throws: IdentityError.self) {
            try Identity.importCertificate(pem: "-----BEGIN CERTIFICATE-----\nAAAA\n", chain: nil, in: root.path)
        }
        guard case .notACertificate = error else {
            Issue.record("expected .notACertificate, got \(String(describing: error))")
            return
        }
    }

    @Test("a CSR name must fit a certificate", arguments: ["", String(repeating: "x", count: 65), "tab\there"])
    func badSubjectNames(name: String) throws {
        let error = #expect(throws: IdentityError.self) {
            try Identities.client.certificateSigningRequest(subjectName: name)
        }
        guard case .invalidSubjectName = error else {
            Issue.record("expected .invalidSubjectName, got \(String(describing: error))")
            return
        }
    }
}

/// Makes `folder` an identity folder holding the generated node.key (no certificate yet: loading issues a
/// self-signed one).
func installNodeKey(in folder: String) throws {
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let path = folder + "/identity.key"
    try write(Array(try TestCertificates.pem("node.key").utf8), to: path)
    chmod(path, 0o600)
}

/// Runs `openssl` with `input` on its standard input; its standard output, or nil if it failed.
func runOpenSSLWithInput(_ arguments: [String], _ input: String) -> Data? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
    process.arguments = arguments
    let output = Pipe()
    let inputPipe = Pipe()
    process.standardOutput = output
    process.standardInput = inputPipe
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { return nil }
    inputPipe.fileHandleForWriting.write(Data(input.utf8))
    try? inputPipe.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return process.terminationStatus == 0 ? data : nil
}
