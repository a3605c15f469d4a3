// TLS 1.3 over real loopback sockets, client and server on two threads.

import Foundation
import Testing

@testable import ShareTLS

#if canImport(Glibc)
    import Glibc
#endif

/// Identities shared by the tests (made once: key generation is cheap, but there is no reason to repeat it).
enum Identities {
    static let day: TimeInterval = 86_400
    static let server = try! Identity.generateEphemeral(notBefore: Date() - day, notAfter: Date() + 365 * day)
    static let client = try! Identity.generateEphemeral(notBefore: Date() - day, notAfter: Date() + 365 * day)
    static let expired = try! Identity.generateEphemeral(
        notBefore: Date(timeIntervalSince1970: 1_577_836_800), notAfter: Date(timeIntervalSince1970: 1_577_923_200))
    static let notYetValid = try! Identity.generateEphemeral(notBefore: Date() + 2 * day, notAfter: Date() + 400 * day)
    static let badSignature = try! Identity.generateWithInvalidSignature()
}

/// What one side of a test connection observed.
struct SideReport: Sendable {
    var peerFingerprint: Fingerprint?
    var peerCertificatePEM: String?
    var peerTrustedBy: CAInfo?
    var peerCATrustProblem: String?
    var protocolVersion = ""
    var cipher = ""
    var bytes = 0
    var digest: [UInt8] = []
    var seconds: Double = 0
}

/// Runs a server and a client on their own threads over a fresh loopback pair; each closes its socket when
/// done, as a transport would.
func converse(
    server serverContext: TLSContext, client clientContext: TLSContext,
    server serverBody: @escaping @Sendable (TLSConnection) throws -> SideReport = { _ in SideReport() },
    client clientBody: @escaping @Sendable (TLSConnection) throws -> SideReport = { _ in SideReport() }
) async throws -> (server: Result<SideReport, any Error>, client: Result<SideReport, any Error>) {
    let pair = try LoopbackPair.make()
    async let server = onThread { () throws -> SideReport in
        defer { close(pair.server) }
        let connection = try TLSConnection(context: serverContext, socket: pair.server)
        try connection.handshake()
        return try serverBody(connection)
    }
    async let client = onThread { () throws -> SideReport in
        defer { close(pair.client) }
        let connection = try TLSConnection(context: clientContext, socket: pair.client)
        try connection.handshake()
        return try clientBody(connection)
    }
    return await (server, client)
}

/// Reports what a side knows about its peer after the handshake.
func describePeer(_ connection: TLSConnection) -> SideReport {
    SideReport(
        peerFingerprint: connection.peerFingerprint, peerCertificatePEM: connection.peerCertificatePEM,
        peerTrustedBy: connection.peerTrustedBy, peerCATrustProblem: connection.peerCATrustProblem,
        protocolVersion: connection.protocolVersion, cipher: connection.cipher)
}

/// Reads once: what a client does right after the handshake, which is where TLS 1.3 tells it that the server
/// refused its certificate.
func readOnce(_ connection: TLSConnection) throws -> SideReport {
    var buffer = [UInt8](repeating: 0, count: 1024)
    let count = try buffer.withUnsafeMutableBytes { buffer in try connection.read(into: buffer) }
    return SideReport(bytes: count)
}

func tlsError(_ result: Result<SideReport, any Error>) -> TLSError? {
    result.failure as? TLSError
}

@Suite("TLS connections")
struct TLSConnectionTests {
    @Test("handshake: each side sees the other's fingerprint, over TLS 1.3")
    func handshake() async throws {
        let (server, client) = try await converse(
            server: .server(identity: Identities.server), client: .client(identity: Identities.client),
            server: { describePeer($0) }, client: { describePeer($0) })
        let serverReport = try server.get()
        let clientReport = try client.get()
        #expect(serverReport.peerFingerprint == Identities.client.fingerprint)
        #expect(clientReport.peerFingerprint == Identities.server.fingerprint)
        #expect(serverReport.peerCertificatePEM == Identities.client.certificatePEM)
        #expect(clientReport.peerCertificatePEM == Identities.server.certificatePEM)
        #expect(serverReport.protocolVersion == "TLSv1.3")
        #expect(clientReport.protocolVersion == "TLSv1.3")
        #expect(
            ["TLS_AES_256_GCM_SHA384", "TLS_AES_128_GCM_SHA256", "TLS_CHACHA20_POLY1305_SHA256"]
                .contains(clientReport.cipher))
        #expect(serverReport.cipher == clientReport.cipher)
    }

    @Test("64 MiB in 1 MiB writes arrives intact (SHA-256 on both ends), then a clean close reads as 0")
    func bulkTransfer() async throws {
        let chunk = 1 << 20
        let chunks = 64
        let (server, client) = try await converse(
            server: .server(identity: Identities.server), client: .client(identity: Identities.client),
            server: { connection in
                var buffer = [UInt8](repeating: 0, count: chunk)
                var hash = SHA256()
                var total = 0
                let start = Date()
                while true {
                    let count = try buffer.withUnsafeMutableBytes { buffer in
                        try connection.read(into: buffer)
                    }
                    if count == 0 { break }
                    hash.update(buffer[0..<count])
                    total += count
                }
                let seconds = Date().timeIntervalSince(start)
                return SideReport(bytes: total, digest: hash.finalize(), seconds: seconds)
            },
            client: { connection in
                var block = SecureRandom.bytes(chunk)
                var hash = SHA256()
                let start = Date()
                for index in 0..<chunks {
                    block[0] = UInt8(truncatingIfNeeded: index)
                    hash.update(block)
                    try block.withUnsafeBytes { bytes in try connection.write(bytes) }
                }
                connection.close()
                return SideReport(
                    bytes: chunk * chunks, digest: hash.finalize(), seconds: Date().timeIntervalSince(start))
            })
        let received = try server.get()
        let sent = try client.get()
        #expect(received.bytes == 64 << 20)
        #expect(received.digest == sent.digest)
        let megabytesPerSecond = Double(received.bytes) / 1_000_000 / max(received.seconds, 0.001)
        print("64 MiB over TLS 1.3 loopback: \(Int(megabytesPerSecond)) MB/s (receiver, debug build)")
    }

    @Test("a client without a certificate is refused; the client learns it on its first read")
    func clientWithoutCertificate() async throws {
        let (server, client) = try await converse(
            server: .server(identity: Identities.server), client: .clientWithoutCertificate(),
            client: readOnce)
        #expect(tlsError(server) == .peerPresentedNoCertificate)
        #expect(tlsError(client) == .peerRefusedOurCertificate(.certificateRequired))
        #expect(tlsError(server)?.description.contains("presented no certificate") == true)
        #expect(tlsError(client)?.description.contains("refused") == true)
    }

    @Test("a refused client that writes before it reads still learns why", arguments: [1, 8 << 20])
    func refusedClientWritesFirst(size: Int) async throws {
        let (server, client) = try await converse(
            server: .server(identity: Identities.server), client: .client(identity: Identities.expired),
            client: { connection in
                Thread.sleep(forTimeInterval: 0.2)  // let the server's alert and hang-up arrive first
                let offer = [UInt8](repeating: 1, count: size)
                try offer.withUnsafeBytes { try connection.write($0) }
                return try readOnce(connection)
            })
        #expect(tlsError(server) == .peerCertificateRejected(.expired(notAfter: Identities.expired.notAfter)))
        #expect(
            tlsError(client) == .peerRefusedOurCertificate(.certificateExpired),
            "got \(String(describing: client.failure))")
    }

    @Test("an expired client certificate is refused by the server")
    func expiredClient() async throws {
        let (server, client) = try await converse(
            server: .server(identity: Identities.server), client: .client(identity: Identities.expired),
            client: readOnce)
        #expect(tlsError(server) == .peerCertificateRejected(.expired(notAfter: Identities.expired.notAfter)))
        #expect(tlsError(client) == .peerRefusedOurCertificate(.certificateExpired))
        #expect(tlsError(server)?.description.contains("expired on 2020-01-02") == true)
    }

    @Test("an expired server certificate is refused by the client")
    func expiredServer() async throws {
        let (server, client) = try await converse(
            server: .server(identity: Identities.expired), client: .client(identity: Identities.client))
        #expect(tlsError(client) == .peerCertificateRejected(.expired(notAfter: Identities.expired.notAfter)))
        #expect(tlsError(server) == .peerRefusedOurCertificate(.certificateExpired))
    }

    @Test("a not-yet-valid certificate is refused, on either side")
    func notYetValid() async throws {
        let notBefore = Identities.notYetValid.notBefore
        let (server1, client1) = try await converse(
            server: .server(identity: Identities.server), client: .client(identity: Identities.notYetValid),
            client: readOnce)
        #expect(tlsError(server1) == .peerCertificateRejected(.notYetValid(notBefore: notBefore)))
        #expect(tlsError(client1) == .peerRefusedOurCertificate(.badCertificate))

        let (server2, client2) = try await converse(
            server: .server(identity: Identities.notYetValid), client: .client(identity: Identities.client))
        #expect(tlsError(client2) == .peerCertificateRejected(.notYetValid(notBefore: notBefore)))
        #expect(tlsError(server2) == .peerRefusedOurCertificate(.badCertificate))
        #expect(tlsError(client2)?.description.contains("clock") == true)
    }

    @Test("a certificate with a forged self-signature is refused, on either side")
    func badSignature() async throws {
        let (server1, client1) = try await converse(
            server: .server(identity: Identities.server), client: .client(identity: Identities.badSignature),
            client: readOnce)
        #expect(tlsError(server1) == .peerCertificateRejected(.invalidSignature))
        #expect(tlsError(client1) == .peerRefusedOurCertificate(.invalidSignature))

        let (server2, client2) = try await converse(
            server: .server(identity: Identities.badSignature), client: .client(identity: Identities.client))
        #expect(tlsError(client2) == .peerCertificateRejected(.invalidSignature))
        #expect(tlsError(server2) == .peerRefusedOurCertificate(.invalidSignature))
    }

    @Test("a TLS 1.2-only peer is told apart, as client or as server")
    func tls12Peer() async throws {
        let (server1, client1) = try await converse(
            server: .server(identity: Identities.server),
            client: .tls12Only(server: false, identity: Identities.client))
        #expect(tlsError(server1) == .peerDoesNotSpeakTLS13(.olderTLSVersion))
        #expect(tlsError(client1) == .peerDoesNotSpeakTLS13(.olderTLSVersion))

        let (server2, client2) = try await converse(
            server: .tls12Only(server: true, identity: Identities.server),
            client: .client(identity: Identities.client))
        #expect(tlsError(client2) == .peerDoesNotSpeakTLS13(.olderTLSVersion))
        #expect(tlsError(server2) == .peerDoesNotSpeakTLS13(.olderTLSVersion))
        #expect(tlsError(client2)?.description.contains("TLS 1.3") == true)
    }

    @Test(
        "bytes that are not a ClientHello give a clear error",
        arguments: [
            ("GET / HTTP/1.1\r\nHost: share.local\r\n\r\n", TLSError.peerDoesNotSpeakTLS13(.httpRequest)),
            ("CONNECT share.local:443 HTTP/1.1\r\n\r\n", TLSError.peerDoesNotSpeakTLS13(.httpRequest)),
            ("SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n", TLSError.peerDoesNotSpeakTLS13(.notTLS)),
            (
                "hello\n\u{0}\u{1}\u{2}\u{3}\u{4}\u{5}\u{6}\u{7}garbage garbage garbage",
                TLSError.peerDoesNotSpeakTLS13(.notTLS)
            ),
        ])
    func notAClientHello(bytes: String, expected: TLSError) async throws {
        let pair = try LoopbackPair.make()
        async let peer = onThread {
            sendRaw(pair.client, Array(bytes.utf8))
            drainRaw(pair.client)
            close(pair.client)
        }
        let server = await onThread { () throws -> Void in
            defer { close(pair.server) }
            let connection = try TLSConnection(context: .server(identity: Identities.server), socket: pair.server)
            try connection.handshake()
        }
        _ = await peer
        #expect(server.failure as? TLSError == expected)
    }

    @Test("random bytes instead of a ClientHello are refused as not TLS")
    func randomBytes() async throws {
        // Fixed first bytes (an "application data" record of an impossible version) so the test does not
        // depend on luck; the rest is random.
        let pair = try LoopbackPair.make()
        let noise = [0x17, 0xFE, 0x42] + SecureRandom.bytes(4093)
        async let peer = onThread {
            sendRaw(pair.client, noise)
            drainRaw(pair.client)
            close(pair.client)
        }
        let server = await onThread { () throws -> Void in
            defer { close(pair.server) }
            try TLSConnection(context: .server(identity: Identities.server), socket: pair.server).handshake()
        }
        _ = await peer
        #expect(server.failure as? TLSError == .peerDoesNotSpeakTLS13(.notTLS))
    }

    @Test("a client talking to something that is not TLS gets a clear error")
    func serverNotTLS() async throws {
        let pair = try LoopbackPair.make()
        async let peer = onThread {
            // Answer whatever arrives like a web server would, then hang up.
            var buffer = [UInt8](repeating: 0, count: 4096)
            _ = buffer.withUnsafeMutableBytes { recv(pair.server, $0.baseAddress, $0.count, 0) }
            sendRaw(pair.server, Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8))
            close(pair.server)
        }
        let client = await onThread { () throws -> Void in
            defer { close(pair.client) }
            try TLSConnection(context: .client(identity: Identities.client), socket: pair.client).handshake()
        }
        _ = await peer
        #expect(client.failure as? TLSError == .peerDoesNotSpeakTLS13(.notTLS))
    }

    @Test("a peer that connects and says nothing times out (SO_RCVTIMEO)")
    func stalledHandshake() async throws {
        let pair = try LoopbackPair.make()
        setTimeouts(pair.server, seconds: 0.3)
        // Timed on the thread itself: resuming the awaiting task can wait long for a busy cooperative pool.
        let server = await onThread { () -> (Result<Void, any Error>, TimeInterval) in
            let start = Date()
            let result = Result {
                try TLSConnection(context: .server(identity: Identities.server), socket: pair.server).handshake()
            }
            return (result, Date().timeIntervalSince(start))
        }
        close(pair.server)
        close(pair.client)
        let (outcome, elapsed) = try server.get()
        #expect(outcome.failure as? TLSError == .timedOut)
        #expect(elapsed >= 0.25 && elapsed < 10)
    }

    @Test("a read that times out can be retried once the peer speaks again")
    func readTimeoutThenData() async throws {
        let (server, client) = try await converse(
            server: .server(identity: Identities.server), client: .client(identity: Identities.client),
            server: { connection in
                setTimeouts(pair: connection)
                var buffer = [UInt8](repeating: 0, count: 64)
                var timedOut = false
                do {
                    _ = try buffer.withUnsafeMutableBytes { buffer in try connection.read(into: buffer) }
                } catch let error as TLSError where error == .timedOut {
                    timedOut = true
                }
                // The client writes after 1 s: the retry waits up to 5 s, so a busy machine cannot
                // make it time out as well (with 0.5 s more it ended at the very moment the client wrote).
                setTimeouts(connection.socketDescriptor, seconds: 5)
                let count = try buffer.withUnsafeMutableBytes { buffer in
                    try connection.read(into: buffer)
                }
                return SideReport(bytes: timedOut ? count : -1)
            },
            client: { connection in
                Thread.sleep(forTimeInterval: 1.0)
                try Array("late".utf8).withUnsafeBytes { bytes in try connection.write(bytes) }
                _ = try? readOnce(connection)  // wait for the server to hang up
                return SideReport()
            })
        #expect(try server.get().bytes == 4)
        _ = client
    }

    @Test("shutdown(2) from another thread cancels a blocked read with .connectionClosed")
    func cancellation() async throws {
        let pair = try LoopbackPair.make()
        let established = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        async let client = onThread { () throws -> Void in
            defer { close(pair.client) }
            let connection = try TLSConnection(context: .client(identity: Identities.client), socket: pair.client)
            try connection.handshake()
            _ = release.wait(timeout: .now() + 20)
        }
        async let server = onThread { () throws -> Int in
            defer { established.signal() }  // also on failure, so the test never waits forever
            let connection = try TLSConnection(context: .server(identity: Identities.server), socket: pair.server)
            try connection.handshake()
            established.signal()
            var buffer = [UInt8](repeating: 0, count: 64)
            return try buffer.withUnsafeMutableBytes { buffer in try connection.read(into: buffer) }
        }
        _ = await onThread { established.wait(timeout: .now() + 20) }
        try await Task.sleep(for: .milliseconds(200))
        shutdown(pair.server, Int32(SHUT_RDWR))
        let serverResult = await server
        release.signal()
        _ = await client
        close(pair.server)
        #expect(serverResult.failure as? TLSError == .connectionClosed)
    }

    @Test("a peer that vanishes mid-stream: the reader gets .connectionClosed, the writer an error, not SIGPIPE")
    func peerVanishes() async throws {
        let (server, client) = try await converse(
            server: .server(identity: Identities.server), client: .client(identity: Identities.client),
            server: { connection in
                // Read a little, then drop the connection without close_notify (and with unread data: RST).
                var buffer = [UInt8](repeating: 0, count: 1024)
                _ = try buffer.withUnsafeMutableBytes { buffer in try connection.read(into: buffer) }
                return SideReport()
            },
            client: { connection in
                let block = [UInt8](repeating: 7, count: 1 << 20)
                for _ in 0..<256 {
                    try block.withUnsafeBytes { bytes in try connection.write(bytes) }
                }
                return SideReport()
            })
        #expect(throws: Never.self) { try server.get() }
        let error = tlsError(client)
        #expect(error == .connectionReset || error == .connectionClosed, "got \(String(describing: client.failure))")

        let (_, reader) = try await converse(
            server: .server(identity: Identities.server), client: .client(identity: Identities.client),
            server: { _ in SideReport() },  // returns at once: the socket closes without close_notify
            client: readOnce)
        #expect(tlsError(reader) == .connectionClosed)
    }

    @Test("close() is safe to repeat, and the connection then reports .connectionClosed")
    func closeTwice() async throws {
        let (server, client) = try await converse(
            server: .server(identity: Identities.server), client: .client(identity: Identities.client),
            server: readOnce,
            client: { connection in
                connection.close()
                connection.close()
                var buffer = [UInt8](repeating: 0, count: 8)
                #expect(throws: TLSError.connectionClosed) {
                    try buffer.withUnsafeMutableBytes { buffer in try connection.read(into: buffer) }
                }
                return SideReport()
            })
        #expect(try server.get().bytes == 0, "the server saw a clean close_notify")
        _ = try client.get()
    }
}

/// Gives a connection's socket a 0.5 s receive and send timeout.
private func setTimeouts(pair connection: TLSConnection) {
    setTimeouts(connection.socketDescriptor, seconds: 0.5)
}
