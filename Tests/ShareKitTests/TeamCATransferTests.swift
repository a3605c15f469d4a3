import Foundation
import ShareKit
import ShareTLS
import ShareTestSupport
import ShareWire
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Identities made from the certificates of Certificates/make-test-certs.sh.
private enum Team {
    static func identity(key: String, certificate: String) throws -> Identity {
        try Identity.fromPEM(key: TestCertificates.pem(key), certificates: TestCertificates.pem(certificate))
    }

    /// Two team members (their certificates from the team CA) and one stranger (another CA).
    static func node() throws -> Identity { try identity(key: "node.key", certificate: "node.crt") }
    static func peer() throws -> Identity { try identity(key: "peer.key", certificate: "peer.crt") }
    static func stranger() throws -> Identity { try identity(key: "node.key", certificate: "wrong-ca.crt") }

    static func authority(_ name: String = "ca/ca.crt") throws -> CAInfo {
        try CACertificate.parse(pem: TestCertificates.pem(name), source: name).info
    }

    /// A config folder whose trusted-cas/ holds `names`.
    static func store(in directory: TemporaryDirectory, adding names: [String] = ["ca/ca.crt"]) throws -> TeamCAStore {
        let store = TeamCAStore(configDirectory: directory.at("config"))
        for name in names { _ = try store.add(pem: TestCertificates.pem(name), source: name) }
        return store
    }
}

/// The offers a receiver saw.
private final class Offers: Sendable {
    private let seen = Mutex<[IncomingOffer]>([])
    func record(_ offer: IncomingOffer) -> Decision {
        seen.withLock { $0.append(offer) }
        return .accept
    }
    var all: [IncomingOffer] { seen.withLock { $0 } }
}

@Suite("Team CA store and transfers") struct TeamCATransferTests {
    // MARK: The store

    @Test func addListFindRemove() throws {
        let dir = TemporaryDirectory("ca-store")
        let store = TeamCAStore(configDirectory: dir.at("config"))
        #expect(try store.load().isEmpty, "no folder yet: no CA")
        let (info, added) = try store.add(pem: TestCertificates.pem("ca/ca.crt"), source: "ca.crt")
        #expect(added)
        #expect(info == (try Team.authority()))
        let file = dir.at("config/trusted-cas/\(info.fingerprint.hex).pem")
        #expect(FileManager.default.fileExists(atPath: file), "one file per CA, named by its SHA-256")
        #expect((try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int) == 0o644)
        #expect(try store.add(pem: TestCertificates.pem("ca/ca.crt"), source: "again").added == false)
        #expect(try store.load().map(\.info) == [info])
        #expect(store.contains(info.fingerprint))
        #expect(try store.find(String(info.fingerprint.hex.prefix(6))).info == info)
        #expect(try store.find("SHARE TEST TEAM CA").info == info, "by common name, any case")
        #expect(try store.find("CN=share test team CA").info == info, "by subject")

        let removed = try store.remove(matching: String(info.fingerprint.hex.prefix(8)))
        #expect(removed == info)
        #expect(!store.contains(info.fingerprint))
        #expect(try store.load().isEmpty)
        #expect(try store.anchors().isEmpty)
    }

    @Test func twoCAsWithOneNameNeedTheFingerprint() throws {
        let dir = TemporaryDirectory("ca-ambiguous")
        let store = try Team.store(in: dir, adding: ["ca/ca.crt", "wrong-ca/ca.crt"])
        #expect(try store.anchors().authorities.count == 2)
        let error = #expect(throws: TeamCAStoreError.self) { try store.remove(matching: "share test team CA") }
        guard case .ambiguous(_, let matches) = error else {
            Issue.record("expected .ambiguous, got \(String(describing: error))")
            return
        }
        #expect(matches.count == 2)
        #expect(error?.description.contains("Give more of the fingerprint") == true)
        let wrong = try Team.authority("wrong-ca/ca.crt")
        #expect(try store.remove(matching: wrong.fingerprint.grouped) == wrong, "grouped form with spaces works")
        #expect(try store.load().map(\.info) == [try Team.authority()])
        let missing = #expect(throws: TeamCAStoreError.self) { try store.remove(matching: "ffff0000") }
        #expect(missing?.description.contains("No team CA matches 'ffff0000'. Trusted team CAs: ") == true)
    }

    @Test(arguments: [
        ("node.crt", "is not a CA certificate"),
        ("no-certsign-ca.crt", "keyCertSign"),
        ("expired-ca/ca.crt", "expired on 2021-01-01"),
    ])
    func refusedCAs(name: String, message: String) throws {
        let dir = TemporaryDirectory("ca-refused")
        let store = TeamCAStore(configDirectory: dir.at("config"))
        let error = #expect(throws: TeamCAStoreError.self) {
            try store.add(pem: TestCertificates.pem(name), source: name)
        }
        #expect(error?.description.contains(message) == true, "\(String(describing: error))")
        #expect(try store.load().isEmpty)
    }

    @Test func aBrokenFileIsAnErrorNotAnEmptyStore() throws {
        let dir = TemporaryDirectory("ca-broken")
        let store = try Team.store(in: dir)
        FileTree.writeText(dir.at("config/trusted-cas/junk.pem"), "not a certificate\n")
        let error = #expect(throws: TeamCAStoreError.self) { try store.anchors() }
        guard case .brokenFile(let path, _) = error else {
            Issue.record("expected .brokenFile, got \(String(describing: error))")
            return
        }
        #expect(path == dir.at("config/trusted-cas/junk.pem"))
        #expect(try store.entries().count == 2)
        // The usable CA can still be found and removed.
        #expect(try store.remove(matching: "share test team CA") == (try Team.authority()))
    }

    // MARK: Transfers

    @Test func teamMembersAreCATrustedOnBothSides() throws {
        let dir = TemporaryDirectory("ca-transfer")
        let anchors = try Team.store(in: dir).anchors()
        let offers = Offers()
        let harness = try ReceiverHarness(
            in: dir, identity: Team.node(), decide: offers.record, configure: { $0.trustAnchors = anchors })
        FileTree.writeText(dir.at("a.txt"), "hello\n")
        var sender = TestSender(identity: try Team.peer())
        sender.options.trustAnchors = anchors
        let report = try sender.send([dir.at("a.txt")], to: harness)
        let ca = try Team.authority()
        #expect(report.peerTrustedBy == ca)
        #expect(report.peerFingerprint == harness.identity.fingerprint)
        #expect(offers.all.map(\.peerTrustedBy) == [ca])
        #expect(offers.all.first?.peerFingerprint == sender.identity.fingerprint)
        guard case .received(let transfer) = harness.nextOutcome() else {
            Issue.record("no transfer")
            return
        }
        #expect(transfer.peerTrustedBy == ca)
    }

    @Test func strangersAndUnconfiguredNodesAreNotCATrusted() throws {
        let dir = TemporaryDirectory("ca-stranger")
        let anchors = try Team.store(in: dir).anchors()
        let offers = Offers()
        let harness = try ReceiverHarness(
            in: dir, identity: Team.node(), decide: offers.record, configure: { $0.trustAnchors = anchors })
        FileTree.writeText(dir.at("a.txt"), "hello\n")
        // A CA with the team CA's name but another key vouches for nobody here.
        var stranger = TestSender(identity: try Team.stranger())
        stranger.options.trustAnchors = anchors
        let report = try stranger.send([dir.at("a.txt")], to: harness)
        #expect(report.peerTrustedBy != nil, "the receiver is a team member")
        // A sender that has not added the CA sees the same receiver as not CA-trusted.
        let plain = TestSender(identity: try Team.peer())
        #expect(try plain.send([dir.at("a.txt")], to: harness).peerTrustedBy == nil)
        #expect(offers.all.map(\.peerTrustedBy) == [nil, try Team.authority()])
    }

    @Test func aCANeverOverridesThePinnedFingerprint() throws {
        // The sender expects the key it pinned; the receiver presents another key that the same team
        // CA certified. Nothing is sent.
        let dir = TemporaryDirectory("ca-pin")
        let anchors = try Team.store(in: dir).anchors()
        let harness = try ReceiverHarness(in: dir, identity: Team.peer(), configure: { $0.trustAnchors = anchors })
        FileTree.writeText(dir.at("secret.txt"), "secret")
        var sender = TestSender(identity: try Team.stranger())
        sender.options.trustAnchors = anchors
        sender.options.expectedKey = .advertised(prefix: try Team.node().fingerprint.prefix(16), name: "desk")
        #expect {
            _ = try sender.send([dir.at("secret.txt")], to: harness)
        } throws: { error in
            guard case SendError.identityMismatch = error else { return false }
            return true
        }
        #expect(FileTree.allPaths(harness.destination).isEmpty)
    }

    @Test func aCARemovedWhileTheReceiverRunsNoLongerVouches() throws {
        let dir = TemporaryDirectory("ca-removed")
        let store = try Team.store(in: dir)
        let anchors = try store.anchors()
        let offers = Offers()
        let harness = try ReceiverHarness(
            in: dir, identity: Team.node(), decide: offers.record,
            configure: {
                $0.trustAnchors = anchors
                $0.isStillTrusted = { store.contains($0.fingerprint) }
            })
        FileTree.writeText(dir.at("a.txt"), "hello\n")
        let sender = TestSender(identity: try Team.peer())
        _ = try sender.send([dir.at("a.txt")], to: harness)
        _ = try store.remove(matching: "share test team CA")
        _ = try sender.send([dir.at("a.txt")], to: harness)
        #expect(offers.all.map(\.peerTrustedBy) == [try Team.authority(), nil])
        _ = harness.nextOutcome()
        guard case .received(let second) = harness.nextOutcome() else {
            Issue.record("no second transfer")
            return
        }
        #expect(second.peerTrustedBy == nil)
    }
}
