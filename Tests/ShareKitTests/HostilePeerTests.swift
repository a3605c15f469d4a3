import Foundation
import ShareDocuments
import ShareKit
import ShareTLS
import ShareTestSupport
import ShareTransport
import ShareWire
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A receiver against deliberately misbehaving senders (docs/SECURITY.md): each case gets its
/// specific error, writes nothing outside the receive folder, leaves no partial file, and an
/// honest transfer at the same time still completes with the right hash.
@Suite struct HostilePeerTests {
    func rawSocket(to endpoint: String) throws -> TCPSocket {
        try TCPSocket.connect(to: Endpoint(parsing: endpoint)!, timeout: .seconds(5))
    }

    @Test func garbageInsteadOfTLSIsRefusedAsNotTLS() throws {
        let scene = try HostileScene("hostile-garbage")
        try scene.run {
            let socket = try rawSocket(to: scene.harness.endpoint)
            _ = [0x17, 0xFE, 0x42].withUnsafeBytes { send(socket.descriptor, $0.baseAddress, $0.count, 0) }
            _ = SecureRandom.bytes(2000).withUnsafeBytes { send(socket.descriptor, $0.baseAddress, $0.count, 0) }
            #expect(scene.hostileOutcomeText().contains("not TLS at all"))
            socket.close()
        }
    }

    @Test func anHTTPRequestIsRefusedAsNotAShareNode() throws {
        let scene = try HostileScene("hostile-http")
        try scene.run {
            let socket = try rawSocket(to: scene.harness.endpoint)
            _ = Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8).withUnsafeBytes { send(socket.descriptor, $0.baseAddress, $0.count, 0) }
            #expect(scene.hostileOutcomeText().contains("HTTP"))
            socket.close()
        }
    }

    @Test func aSilentTCPClientTimesOut() throws {
        let scene = try HostileScene("hostile-silent") { $0.handshakeTimeout = .seconds(1) }
        try scene.run {
            let socket = try rawSocket(to: scene.harness.endpoint)
            #expect(scene.hostileOutcomeText().contains("timed out"))
            socket.close()
        }
    }

    @Test func aSlowlorisIsCutOffAtTheOfferDeadline() throws {
        let scene = try HostileScene("hostile-slow") {
            $0.handshakeTimeout = .seconds(5)
            $0.offerDeadline = .seconds(2)
        }
        try scene.run {
            let connection = try HostileSender(in: scene.dir).connect(scene.harness.endpoint)
            let hello = FrameEncoder.encode(.hello(Hello(name: "slow")))
            // One byte every half second: each read succeeds, but the offer never comes.
            for byte in hello.prefix(8) {
                guard (try? connection.writeRaw([byte])) != nil else { break }
                usleep(500_000)
            }
            #expect(scene.hostileOutcomeText().contains("did not complete its TLS handshake and offer within 2 seconds"))
            connection.close()
        }
    }

    @Test func anOfferWhoseEntriesKeepComingOutlastsTheOfferDeadline() throws {
        let scene = try HostileScene("hostile-long-offer") {
            $0.offerDeadline = .seconds(2)
            $0.rateWindow = .seconds(2)
            $0.minimumRate = 16
        }
        try scene.run(expectReceived: ["Album", "Album/a", "Album/b"]) {
            let connection = try HostileSender(in: scene.dir).connect(scene.harness.endpoint)
            // A big offer over a slow link: its first frame in time, the rest well after the deadline.
            try connection.writeRaw(
                FrameEncoder.encode(.hello(Hello(name: "long")))
                    + RawOffer.frame([.init(kind: 2, path: "Album", mode: 0o755)], count: 3))
            for name in ["a", "b"] {
                usleep(1_500_000)
                try connection.writeRaw(RawOffer.entriesFrame([.init(kind: 2, path: "Album/" + name, mode: 0o755)]))
            }
            _ = try connection.receive()  // HELLO
            let decision = try connection.receive()
            connection.close()
            #expect(decision == .decision(Decision(.accepted)), "\(decision)")
            #expect(scene.hostileOutcomeText() == "received: [\"Album\"]")
        }
    }

    @Test func aSenderSilentAfterABurstIsCutWhenItsSilenceRunsOutNotAWindowLater() throws {
        // The silence limit and the rate window as long as each other, as by default (60 s each).
        let scene = try HostileScene("hostile-burst-silence") {
            $0.idleTimeout = .seconds(2)
            $0.rateWindow = .seconds(2)
        }
        try scene.run {
            let connection = try HostileSender(in: scene.dir).connect(scene.harness.endpoint)
            try connection.writeRaw(
                FrameEncoder.encode(.hello(Hello(name: "burst")))
                    + RawOffer.frame([.init(path: "big.bin", size: 8 << 20)]))
            _ = try connection.receive()  // HELLO
            #expect(try connection.receive() == .decision(Decision(.accepted)))
            // A burst well above the least rate, then nothing.
            for part in 0..<4 {
                let bytes = [UInt8](repeating: UInt8(part), count: 256 << 10)
                try connection.send(.data(DataChunk(fileIndex: 0, offset: UInt64(part) << 18, bytes: bytes)))
            }
            let silent = ContinuousClock.now
            let answer = try connection.receive()
            let waited = ContinuousClock.now - silent
            connection.close()
            guard case .error(let error)? = answer else {
                Issue.record("expected an ERROR, got \(String(describing: answer))")
                return
            }
            #expect(error.code == .timedOut, "\(error)")
            #expect(waited >= .milliseconds(1_900) && waited < .milliseconds(3_500), "cut after \(waited), the limit is 2 s")
            #expect(scene.hostileOutcomeText().contains("heard nothing from the sender for 2 s"))
        }
    }

    @Test func anOfferWhoseEntriesDripIsCutOffAsTooSlow() throws {
        let scene = try HostileScene("hostile-drip-offer") {
            $0.offerDeadline = .seconds(2)
            $0.rateWindow = .seconds(2)
            $0.minimumRate = 1 << 10
        }
        try scene.run {
            let connection = try HostileSender(in: scene.dir).connect(scene.harness.endpoint)
            try connection.writeRaw(
                FrameEncoder.encode(.hello(Hello(name: "drip")))
                    + RawOffer.frame([.init(kind: 2, path: "Album", mode: 0o755)], count: 2))
            // The next ENTRIES frame one byte every 200 ms: every read succeeds, the offer never ends.
            let frame = RawOffer.entriesFrame([.init(kind: 2, path: "Album/" + String(repeating: "x", count: 200), mode: 0o755)])
            let started = ContinuousClock.now
            for byte in frame where ContinuousClock.now - started < .seconds(8) {
                guard (try? connection.writeRaw([byte])) != nil else { break }
                usleep(200_000)
            }
            connection.close()
            #expect(scene.hostileOutcomeText().contains("too slow"))
        }
    }

    @Test func tls12IsRefused() throws {
        let scene = try HostileScene("hostile-tls12")
        try scene.run {
            let sender = try HostileSender(in: scene.dir)
            #expect(throws: TransportError.self) {
                _ = try sender.connect(scene.harness.endpoint, context: TLSContext.tls12Only(server: false, identity: sender.identity))
            }
            #expect(scene.hostileOutcomeText().contains("TLS 1.2 or older"))
        }
    }

    @Test func anExpiredCertificateIsRefused() throws {
        let scene = try HostileScene("hostile-expired")
        try scene.run {
            let expired = try Identity.generateEphemeral(
                notBefore: Date(timeIntervalSinceNow: -86_400 * 30), notAfter: Date(timeIntervalSinceNow: -86_400))
            #expect(throws: (any Error).self) {
                let connection = try HostileSender(in: scene.dir).connect(
                    scene.harness.endpoint, context: TLSContext.client(identity: expired))
                try connection.send(.hello(Hello(name: "expired")))
                _ = try connection.receive()
            }
            #expect(scene.hostileOutcomeText().contains("expired"))
        }
    }

    @Test func anUnknownFrameTypeIsAProtocolViolation() throws {
        let scene = try HostileScene("hostile-frame")
        try scene.run {
            let error = try HostileSender(in: scene.dir).sendAfterHello([0x47, 0, 0, 0, 1, 0], to: scene.harness.endpoint)
            #expect(error?.code == .protocolViolation)
            #expect(error?.message == "the peer sent a frame of unknown type 0x47")
            #expect(scene.hostileOutcomeText().contains("unknown type 0x47"))
        }
    }

    @Test func aFrameThatLiesAboutItsLengthIsRefusedBeforeItsPayload() throws {
        let scene = try HostileScene("hostile-length")
        try scene.run {
            let error = try HostileSender(in: scene.dir).sendAfterHello([0x02, 0xFF, 0xFF, 0xFF, 0xF0], to: scene.harness.endpoint)
            #expect(error?.code == .limitExceeded)
            #expect(error?.message.contains("OFFER frame of 4294967280 bytes (the limit is 16777216)") == true)
            _ = scene.hostileOutcome()
        }
    }

    @Test(arguments: [
        ("../escape.txt", "'..' component"),
        ("/etc/cron.d/evil", "absolute"),
        ("ok/../../escape", "'..' component"),
        ("evil\u{1B}[2J.txt", "forbidden character U+1B"),
        ("c:\\windows", "forbidden character U+5C"),
        (".share-staging", "reserved"),
    ])
    func anOfferWithAnUnsafePathIsRefusedAndWritesNothing(_ path: String, _ reason: String) throws {
        let scene = try HostileScene("hostile-path")
        try scene.run {
            let offer = RawOffer.frame([.init(path: path, size: 5)])
            let error = try HostileSender(in: scene.dir).sendAfterHello(offer, to: scene.harness.endpoint)
            #expect(error?.code == .invalidOffer)
            #expect(error?.message.contains(reason) == true, "\(error?.message ?? "no error")")
            _ = scene.hostileOutcome()
        }
    }

    /// Names that are not names (a home folder's `~`, only white space, only dots) are refused as
    /// control characters are: the sender is told which path and why, the receiver reports the same
    /// reason, and nothing is written.
    @Test(arguments: [
        ("~/x", "'~/x' is not a safe name: a name in the path begins with '~', which a shell reads as a home folder"),
        ("~bob", "'~bob' is not a safe name: a name in the path begins with '~'"),
        (" ", "'\\u{20}' is not a safe name: a name in the path is only white space or invisible characters"),
        ("...", "'...' is not a safe name: a name in the path is only dots"),
    ])
    func aNameThatIsNotANameIsRefusedWithItsReasonOnBothSides(_ path: String, _ reason: String) throws {
        let scene = try HostileScene("hostile-unnamed")
        try scene.run {
            let offer = RawOffer.frame([.init(path: path, size: 5)])
            let error = try HostileSender(in: scene.dir).sendAfterHello(offer, to: scene.harness.endpoint)
            #expect(error?.code == .invalidOffer)
            #expect(error?.message.contains(reason) == true, "\(error?.message ?? "no error")")
            let receiverSide = scene.hostileOutcomeText()
            #expect(receiverSide.contains(reason), "\(receiverSide)")
        }
    }

    @Test func aNULInANameIsRefusedByTheDecoder() throws {
        let scene = try HostileScene("hostile-nul")
        try scene.run {
            let offer = RawOffer.frame([.init(path: "a\u{0}b", size: 5)])
            let error = try HostileSender(in: scene.dir).sendAfterHello(offer, to: scene.harness.endpoint)
            #expect(error?.code == .protocolViolation)
            #expect(error?.message == "the peer sent a malformed OFFER frame: a path contains NUL")
            _ = scene.hostileOutcome()
        }
    }

    @Test func bundleTricksAreRefused() throws {
        let cases: [([RawOffer.Entry], String)] = [
            ([.init(kind: 2, path: "B", mode: 0o755), .init(kind: 3, path: "B/l", mode: 0o777, target: "../../.ssh")], "outside its folder"),
            ([.init(kind: 2, path: "B", mode: 0o755), .init(kind: 3, path: "B/l", mode: 0o777, target: "/home")], "unsafe target"),
            ([.init(path: "report.pdf"), .init(path: "report.pdf")], "is listed twice"),
            ([.init(path: "run.sh", mode: 0o4755)], "only permission bits"),
            ([.init(kind: 2, path: "B", mode: 0o755), .init(path: "C/x")], "listed before (or without) its folder"),
        ]
        let scene = try HostileScene("hostile-bundle")
        try scene.run {
            for (entries, reason) in cases {
                let error = try HostileSender(in: scene.dir).sendAfterHello(RawOffer.frame(entries), to: scene.harness.endpoint)
                #expect(error?.code == .invalidOffer)
                #expect(error?.message.contains(reason) == true, "\(error?.message ?? "no error")")
                _ = scene.hostileOutcome()
            }
        }
    }

    @Test func moreEntriesThanTheOfferAnnouncesAreAnInvalidOffer() throws {
        let scene = try HostileScene("hostile-extra-entries")
        try scene.run {
            // Too many in the OFFER itself, and too many once an ENTRIES frame follows.
            let cases = [
                RawOffer.frame([.init(path: "a"), .init(path: "b")], count: 1),
                RawOffer.frame([.init(path: "a")], count: 2) + RawOffer.entriesFrame([.init(path: "b"), .init(path: "c")]),
            ]
            for offer in cases {
                let error = try HostileSender(in: scene.dir).sendAfterHello(offer, to: scene.harness.endpoint)
                #expect(error?.code == .invalidOffer, "\(String(describing: error))")
                #expect(error?.message.contains("announced") == true, "\(error?.message ?? "no error")")
                _ = scene.hostileOutcome()
            }
        }
    }

    @Test func aPairingRequestToAReceiverThatShowsNoCodeIsDeclinedAsNobodyToAsk() throws {
        let scene = try HostileScene("hostile-pair")
        try scene.run {
            let connection = try HostileSender(in: scene.dir).connect(scene.harness.endpoint)
            defer { connection.close() }
            // The receiver asks nobody (no terminal, no notifications): its HELLO has no COMPARE.
            try connection.writeRaw(
                FrameEncoder.encode(.hello(Hello(name: "pairer", flags: [.attended, .compare])))
                    + FrameEncoder.encode(.pair))
            guard case .hello(let hello)? = try connection.receive() else {
                Issue.record("expected the receiver's HELLO")
                return
            }
            #expect(!hello.flags.contains(.compare))
            let answer = try connection.receive()
            guard case .decision(let decision)? = answer else {
                Issue.record("expected DECISION nobodyToAsk, got \(String(describing: answer))")
                return
            }
            #expect(decision.code == .nobodyToAsk)
            guard case .paired(let request, let confirmed)? = scene.hostileOutcome() else {
                Issue.record("the receiver did not report the pairing request")
                return
            }
            #expect(request.peerName == "pairer")
            #expect(!confirmed)
        }
    }

    @Test func tooManyEntriesAreRefusedBeforeTheyAreRead() throws {
        let scene = try HostileScene("hostile-count")
        try scene.run {
            let offer = RawOffer.frame([.init(path: "a")], count: 1_000_001)
            let error = try HostileSender(in: scene.dir).sendAfterHello(offer, to: scene.harness.endpoint)
            #expect(error?.code == .limitExceeded)
            #expect(error?.message.contains("1,000,001 files, folders and links; one offer may hold 1,000,000") == true)
            _ = scene.hostileOutcome()
        }
    }

    @Test func anOfferLargerThanTheDiskIsDeclined() throws {
        let scene = try HostileScene("hostile-space")
        try scene.run {
            let connection = try HostileSender(in: scene.dir).connect(scene.harness.endpoint)
            defer { connection.close() }
            try connection.writeRaw(FrameEncoder.encode(.hello(Hello(name: "big"))) + RawOffer.frame([.init(path: "huge.img", size: 1 << 60)]))
            var decision: Decision?
            while let frame = try? connection.receive() {
                if case .decision(let answer) = frame { decision = answer; break }
            }
            #expect(decision?.code == .insufficientSpace)
            if case .declined(_, let declined) = scene.hostileOutcome() {
                #expect(declined.code == .insufficientSpace)
            } else {
                Issue.record("no decline reported")
            }
        }
    }

    @Test func aSenderThatDoesNotKeepItsDeclaredSizeIsStopped() throws {
        let scene = try HostileScene("hostile-size")
        try scene.run {
            for (data, label) in [(20, "more"), (5, "fewer")] {
                let connection = try HostileSender(in: scene.dir).connect(scene.harness.endpoint)
                var bytes = FrameEncoder.encode(.hello(Hello(name: "liar"))) + RawOffer.frame([.init(path: "ten.bin", size: 10)])
                try connection.writeRaw(bytes)
                _ = try connection.receive()  // HELLO
                _ = try connection.receive()  // DECISION
                bytes = FrameEncoder.encode(.data(DataChunk(fileIndex: 0, offset: 0, bytes: [UInt8](repeating: 1, count: data))))
                bytes += FrameEncoder.encode(.fileEnd(fileIndex: 0, sha256: [UInt8](repeating: 0, count: 32)))
                try? connection.writeRaw(bytes)
                let error = HostileSender.firstError(from: connection)
                connection.close()
                #expect(error?.code == .sizeMismatch, "\(label) bytes than declared")
                #expect(error?.message.contains("'ten.bin' was offered as 10 bytes") == true)
                #expect(scene.hostileOutcomeText().contains("was offered as 10 bytes"))
            }
        }
    }

    @Test func aFrameCutOffByTheConnectionLeavesNothing() throws {
        let scene = try HostileScene("hostile-cut")
        try scene.run {
            let connection = try HostileSender(in: scene.dir).connect(scene.harness.endpoint)
            var bytes = FrameEncoder.encode(.hello(Hello(name: "cut"))) + RawOffer.frame([.init(path: "cut.bin", size: 100_000)])
            try connection.writeRaw(bytes)
            _ = try connection.receive()  // HELLO
            _ = try connection.receive()  // DECISION
            bytes = FrameEncoder.encode(.data(DataChunk(fileIndex: 0, offset: 0, bytes: [UInt8](repeating: 7, count: 60_000))))
            try connection.writeRaw(Array(bytes.prefix(30_000)))
            connection.close()
            #expect(scene.hostileOutcomeText().contains("the connection ended in the middle of a frame"))
        }
    }

    @Test func aSenderThatDripsDataIsCutOffAndToldWhy() throws {
        let scene = try HostileScene("hostile-drip") {
            $0.rateWindow = .seconds(2)
            $0.minimumRate = 1 << 10
        }
        try scene.run {
            let connection = try HostileSender(in: scene.dir).connect(scene.harness.endpoint)
            try connection.writeRaw(
                FrameEncoder.encode(.hello(Hello(name: "drip"))) + RawOffer.frame([.init(path: "slow.bin", size: 100_000)]))
            _ = try connection.receive()  // HELLO
            _ = try connection.receive()  // DECISION
            // A DATA frame of 50 KB, one byte every 200 ms: every read succeeds, the frame never ends.
            let frame = FrameEncoder.encode(.data(DataChunk(fileIndex: 0, offset: 0, bytes: [UInt8](repeating: 7, count: 50_000))))
            let started = ContinuousClock.now
            var sent = 0
            var error: PeerError?
            while sent < 40, ContinuousClock.now - started < .seconds(8), error == nil {
                if (try? connection.writeRaw([frame[sent]])) == nil { break }
                sent += 1
                usleep(200_000)
                if case .error(let refusal)? = try? connection.receiveIfReady() { error = refusal }
            }
            if error == nil { error = HostileSender.firstError(from: connection) }
            connection.close()
            #expect(error?.code == .timedOut)
            #expect(error?.message.contains("the sender is too slow") == true, "\(error?.message ?? "no error")")
            #expect(scene.hostileOutcomeText().contains("too slow"))
        }
    }

    @Test func aSenderThatFallsSilentIsToldTheReceiverTimedOut() throws {
        let scene = try HostileScene("hostile-mute")
        try scene.run {
            let connection = try HostileSender(in: scene.dir).connect(scene.harness.endpoint)
            try connection.writeRaw(
                FrameEncoder.encode(.hello(Hello(name: "mute"))) + RawOffer.frame([.init(path: "mute.bin", size: 100_000)]))
            _ = try connection.receive()  // HELLO
            _ = try connection.receive()  // DECISION
            try connection.writeRaw(FrameEncoder.encode(.data(DataChunk(fileIndex: 0, offset: 0, bytes: [1, 2, 3]))))
            let error = HostileSender.firstError(from: connection)
            connection.close()
            #expect(error?.code == .timedOut)
            #expect(error?.message.contains("heard nothing from the sender for 5 s") == true, "\(error?.message ?? "no error")")
            _ = scene.hostileOutcome()
        }
    }
}
