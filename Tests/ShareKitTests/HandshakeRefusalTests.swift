import Foundation
import ShareKit
import ShareTLS
import ShareTestSupport
import ShareTransport
import ShareWire
import Testing

/// Connections the receiver must refuse before any transfer starts.
@Suite struct HandshakeRefusalTests {
    @Test func aClientWithoutACertificateIsRefused() throws {
        let dir = TemporaryDirectory("nocert")
        let harness = try ReceiverHarness(in: dir)
        let context = try TLSContext.clientWithoutCertificate()
        let endpoint = try #require(Endpoint(parsing: harness.endpoint))
        // TLS 1.3: the client finishes its handshake, then learns of the refusal on its first read.
        let connection = try SecureConnection.connect(to: endpoint, context: context)
        #expect {
            try connection.send(.hello(Hello(name: "intruder")))
            _ = try connection.receive()
        } throws: { error in
            "\(error)".contains("refused") && "\(error)".contains("certificate")
        }
        connection.close()
        guard case .refused(_, let reason) = harness.nextOutcome() else {
            Issue.record("the receiver did not report the refusal")
            return
        }
        #expect(reason.contains("no certificate"))
        #expect(FileTree.allPaths(harness.destination).isEmpty)
    }

    @Test func aSenderPinnedToAnotherKeySendsNothing() throws {
        let dir = TemporaryDirectory("pin")
        let harness = try ReceiverHarness(in: dir)
        FileTree.writeText(dir.at("secret.txt"), "secret")
        var sender = try TestSender(in: dir)
        sender.options.expectedKey = .advertised(prefix: "00000000deadbeef", name: "desk")
        #expect {
            _ = try sender.send([dir.at("secret.txt")], to: harness)
        } throws: { error in
            guard case SendError.identityMismatch = error else { return false }
            return "\(error)".contains("may be impersonating that peer; nothing was sent")
        }
        #expect(FileTree.allPaths(harness.destination).isEmpty)
    }
}
