import Foundation
import ShareDocuments
import ShareKit
import ShareTLS
import ShareTestSupport
import ShareTransport
import ShareWire
import Synchronization
import Testing

/// A deliberately misbehaving receiver: a real TLS server that answers a sender with any bytes.
final class HostileReceiver: Sendable {
    let listener: TCPListener
    let identity: Identity

    /// Listens on a free port; the first connection gets `script` (after the TLS handshake).
    init(in directory: TemporaryDirectory, identity: Identity? = nil, script: @escaping @Sendable (SecureConnection) -> Void) throws {
        let identity = try identity ?? Identity.loadOrCreate(in: directory.at("hostile-receiver"))
        self.identity = identity
        listener = try TCPListener(port: 0)
        let listener = self.listener
        let context = try TLSContext.server(identity: identity)
        Thread {
            guard let socket = try? listener.accept(),
                let connection = try? SecureConnection.accept(socket, context: context)
            else { return }
            connection.setTimeouts(receive: .seconds(10), send: .seconds(10))
            script(connection)
            connection.close()
        }.start()
    }

    var endpoint: Endpoint { Endpoint(host: "127.0.0.1", port: listener.port) }

    deinit { listener.stop() }
}

/// A sender against receivers that misbehave: each gets a specific error, never a crash or a hang.
@Suite struct HostileReceiverTests {
    func send(_ dir: TemporaryDirectory, to receiver: HostileReceiver, decisionTimeout: Duration = .seconds(20)) throws -> SendError? {
        FileTree.writeFile(dir.at("doc.bin"), size: 3_000_000, seed: 3)
        var sender = try TestSender(in: dir)
        sender.options.decisionTimeout = decisionTimeout
        sender.options.unattendedDecisionTimeout = decisionTimeout
        sender.options.idleTimeout = decisionTimeout
        let prepared = try PreparedSend.scan([dir.at("doc.bin")])
        do {
            _ = try Sender.send(prepared, to: receiver.endpoint, identity: sender.identity, options: sender.options)
            return nil
        } catch {
            return error
        }
    }

    /// Reads the sender's HELLO and OFFER.
    static func readOffer(_ connection: SecureConnection) {
        _ = try? connection.receive()
        _ = try? connection.receive()
    }

    @Test func garbageInsteadOfAHello() throws {
        let dir = TemporaryDirectory("hostile-rx-garbage")
        let receiver = try HostileReceiver(in: dir) { connection in
            try? connection.writeRaw([0x99, 0, 0, 0, 0])
            Self.readOffer(connection)
        }
        let error = try send(dir, to: receiver)
        #expect(error.map { "\($0)" } == "the transfer failed: the peer sent a frame of unknown type 0x99")
    }

    @Test func aDecisionBeforeTheHello() throws {
        let dir = TemporaryDirectory("hostile-rx-order")
        let receiver = try HostileReceiver(in: dir) { connection in
            try? connection.send(.decision(.accept))
            Self.readOffer(connection)
        }
        let error = try send(dir, to: receiver)
        #expect(error.map { "\($0)" } == "the transfer failed: the peer sent DECISION where HELLO was expected")
    }

    @Test func aFrameThatLiesAboutItsLength() throws {
        let dir = TemporaryDirectory("hostile-rx-length")
        let receiver = try HostileReceiver(in: dir) { connection in
            try? connection.send(.hello(Hello(name: "liar")))
            try? connection.writeRaw([0x06, 0x7F, 0xFF, 0xFF, 0xFF])
            Self.readOffer(connection)
        }
        let error = try send(dir, to: receiver)
        #expect(error.map { "\($0)" } == "the transfer failed: the peer sent a RECEIPT frame of 2147483647 bytes (the limit is 16777216)")
    }

    @Test func aReceiptThatDoesNotNameEveryItem() throws {
        let dir = TemporaryDirectory("hostile-rx-receipt")
        let receiver = try HostileReceiver(in: dir) { connection in
            try? connection.send(.hello(Hello(name: "sloppy")))
            Self.readOffer(connection)
            try? connection.send(.decision(.accept))
            while let frame = try? connection.receive() {
                if case .fileEnd = frame { break }
            }
            try? connection.send(.receipt(Receipt(items: [ReceiptItem(.placed, "~/a"), ReceiptItem(.placed, "~/b")])))
        }
        let error = try send(dir, to: receiver)
        #expect(error.map { "\($0)" } == "the transfer failed: the peer sent a malformed RECEIPT frame: 2 items for 1")
    }

    @Test func aReceiverThatHangsUpMidTransfer() throws {
        let dir = TemporaryDirectory("hostile-rx-hangup")
        let receiver = try HostileReceiver(in: dir) { connection in
            try? connection.send(.hello(Hello(name: "quitter")))
            Self.readOffer(connection)
            try? connection.send(.decision(.accept))
            _ = try? connection.receive()
            connection.cancel()
        }
        let error = try send(dir, to: receiver)
        let text = error.map { "\($0)" } ?? "no error"
        #expect(text.contains("127.0.0.1:\(receiver.listener.port)"), "\(text)")
    }

    @Test func aReceiverThatNeverAnswersTimesOut() throws {
        let dir = TemporaryDirectory("hostile-rx-stall")
        let receiver = try HostileReceiver(in: dir) { connection in
            try? connection.send(.hello(Hello(name: "sphinx")))
            Self.readOffer(connection)
            usleep(3_000_000)
        }
        let error = try send(dir, to: receiver, decisionTimeout: .seconds(1))
        #expect(error.map { "\($0)" } == "the transfer failed: no decision came within 1 s")
    }

    @Test func aRefusalThatComesWithAHelloWithoutDecidedGetsNoOffer() throws {
        let dir = TemporaryDirectory("hostile-rx-refusal")
        let received = Mutex<[FrameType]>([])
        let receiver = try HostileReceiver(in: dir) { connection in
            _ = try? connection.receive()  // HELLO
            // A refusal right after a HELLO that does not say DECIDED, in one write.
            try? connection.writeRaw(
                FrameEncoder.encode(.hello(Hello(name: "strict")))
                    + FrameEncoder.encode(.decision(Decision(.refusedByPolicy, message: "only verified senders"))))
            while let frame = try? connection.receive() { received.withLock { $0.append(frame.type) } }
        }
        let error = try send(dir, to: receiver)
        guard case .declined(let decision)? = error else {
            Issue.record("expected the refusal, got \(String(describing: error))")
            return
        }
        #expect(decision.code == .refusedByPolicy)
        usleep(200_000)
        let frames = received.withLock { $0 }
        #expect(!frames.contains(.offer) && !frames.contains(.entries), "nothing of the offer was sent: \(frames)")
    }

    @Test func aVersion1ReceiversRefusalIsExplainedNotEchoed() throws {
        let dir = TemporaryDirectory("hostile-rx-v1")
        let receiver = try HostileReceiver(in: dir) { connection in
            _ = try? connection.receive()  // the version 2 HELLO
            try? connection.send(.error(PeerError(.unsupportedVersion, "unsupported version 2")))
        }
        let error = try send(dir, to: receiver)
        let text = error.map { "\($0)" } ?? "no error"
        #expect(
            text.contains("the peer runs an older share (protocol 1) and this one speaks protocol 2: update share there"),
            "\(text)")
        #expect(!text.contains("unsupported version 2"), "\(text)")

        // A newer receiver's refusal says what to do itself: it is shown as it is.
        let newer = try HostileReceiver(in: TemporaryDirectory("hostile-rx-v3")) { connection in
            _ = try? connection.receive()
            try? connection.send(
                .error(
                    PeerError(
                        .unsupportedVersion,
                        "this receiver speaks share protocol 3 and the sender speaks protocol 2: update share on the sender")))
        }
        let newerText = try send(TemporaryDirectory("hostile-rx-v3-sender"), to: newer).map { "\($0)" } ?? "no error"
        #expect(newerText.contains("this receiver speaks share protocol 3"), "\(newerText)")
    }

    @Test func aDecisionThatNeverCompletesIsGivenUpOnWhenTheDecisionsTimeRunsOut() throws {
        let dir = TemporaryDirectory("hostile-rx-half-decision")
        let receiver = try HostileReceiver(in: dir) { connection in
            try? connection.send(.hello(Hello(name: "stutter")))
            Self.readOffer(connection)
            try? connection.writeRaw([FrameType.decision.rawValue])  // the first byte of a DECISION, then nothing
            sleep(8)
        }
        let started = ContinuousClock.now
        let error = try send(dir, to: receiver, decisionTimeout: .seconds(1))
        #expect(error.map { "\($0)" } == "the transfer failed: no decision came within 1 s")
        #expect(ContinuousClock.now - started < .milliseconds(2_500), "given up after \(ContinuousClock.now - started)")
    }

    @Test func aReceiverWithAnExpiredCertificateIsRefused() throws {
        let dir = TemporaryDirectory("hostile-rx-expired")
        let expired = try Identity.generateEphemeral(
            notBefore: Date(timeIntervalSinceNow: -86_400 * 30), notAfter: Date(timeIntervalSinceNow: -86_400))
        let receiver = try HostileReceiver(in: dir, identity: expired) { connection in
            Self.readOffer(connection)
        }
        let error = try send(dir, to: receiver)
        #expect(error.map { "\($0)" }?.contains("expired") == true)
    }

    @Test func aReceiverThatNeverGreetsIsGivenUpOnAndNamed() throws {
        let dir = TemporaryDirectory("hostile-rx-mute")
        let receiver = try HostileReceiver(in: dir) { connection in
            _ = try? connection.receive()
            usleep(3_000_000)
        }
        FileTree.writeText(dir.at("a.txt"), "a")
        var sender = try TestSender(in: dir)
        sender.options.connectTimeout = .seconds(1)
        #expect {
            _ = try Sender.send(try PreparedSend.scan([dir.at("a.txt")]), to: receiver.endpoint, identity: sender.identity, options: sender.options)
        } throws: { "\($0)".contains("the receiver did not answer the greeting within 1 s") }
    }

    /// A receiver that accepts, then reads nothing more for `seconds` (its buffers fill up).
    static func asleepAfterAccepting(_ dir: TemporaryDirectory, for seconds: UInt32 = 10) throws -> HostileReceiver {
        try HostileReceiver(in: dir) { connection in
            _ = try? connection.receive()
            try? connection.send(.hello(Hello(name: "sleepy")))
            _ = try? connection.receive()
            try? connection.send(.decision(.accept))
            sleep(seconds)  // asleep: reads nothing more
        }
    }

    @Test func aReceiverThatStopsReadingIsNoticedAsAStallWhenTheStallLimitRunsOut() throws {
        let dir = TemporaryDirectory("hostile-rx-asleep")
        let receiver = try Self.asleepAfterAccepting(dir)
        FileTree.writeSparseFile(dir.at("big.img"), size: 256 << 20)
        var sender = try TestSender(in: dir)
        sender.options.idleTimeout = .seconds(2)
        let started = ContinuousClock.now
        #expect {
            _ = try Sender.send(try PreparedSend.scan([dir.at("big.img")]), to: receiver.endpoint, identity: sender.identity, options: sender.options)
        } throws: { "\($0)".contains("the receiver took no data for 2 s") }
        // Bytes the kernel's buffers took, or a trickle of their space, are no progress: the limit
        // counts from the last byte the receiver acknowledged.
        let took = ContinuousClock.now - started
        #expect(took >= .seconds(2) && took < .milliseconds(3_500), "ended after \(took); the stall limit is 2 s")
    }

    @Test func aCancelWhileTheReceiverTakesNothingEndsAtOnceAndSaysItCouldNotBeTold() throws {
        let dir = TemporaryDirectory("hostile-rx-asleep-cancel")
        let receiver = try Self.asleepAfterAccepting(dir)
        FileTree.writeSparseFile(dir.at("big.img"), size: 256 << 20)
        var sender = try TestSender(in: dir)
        let cancellation = SendCancellation()
        sender.options.cancellation = cancellation
        let cancelledAt = Mutex<ContinuousClock.Instant?>(nil)
        Thread {
            usleep(1_000_000)  // the sender is blocked writing by now
            cancelledAt.withLock { $0 = .now }
            cancellation.cancel()
        }.start()
        var failure: SendError?
        do {
            _ = try Sender.send(try PreparedSend.scan([dir.at("big.img")]), to: receiver.endpoint, identity: sender.identity, options: sender.options)
        } catch {
            failure = error
        }
        let took = ContinuousClock.now - (cancelledAt.withLock { $0 } ?? .now)
        #expect(took < .seconds(1), "the cancel ended the send after \(took)")
        #expect(failure?.description.contains("the receiver could not be told") == true, "\(String(describing: failure))")
    }

    @Test func aCancelWhileTheReceiverDecidesTellsIt() throws {
        let dir = TemporaryDirectory("hostile-rx-cancel-told")
        let heard = Mutex<[Frame]>([])
        let receiver = try HostileReceiver(in: dir) { connection in
            _ = try? connection.receive()
            try? connection.send(.hello(Hello(name: "pondering", flags: [.attended])))
            while let frame = try? connection.receive() { heard.withLock { $0.append(frame) } }
        }
        FileTree.writeText(dir.at("a.txt"), "a")
        var sender = try TestSender(in: dir)
        let cancellation = SendCancellation()
        sender.options.cancellation = cancellation
        Thread {
            usleep(500_000)
            cancellation.cancel()
        }.start()
        #expect {
            _ = try Sender.send(try PreparedSend.scan([dir.at("a.txt")]), to: receiver.endpoint, identity: sender.identity, options: sender.options)
        } throws: { "\($0)" == "cancelled; the receiver was told, and nothing was placed" }
        usleep(300_000)
        #expect(heard.withLock { $0.last.map { if case .error(let error) = $0 { error.code == .cancelled } else { false } } } == true)
    }

    @Test func aCodeComparisonAskedOfAnUnattendedSenderIsRefusedAtOnce() throws {
        let dir = TemporaryDirectory("hostile-rx-compare")
        let answered = Mutex<[Frame]>([])
        let receiver = try HostileReceiver(in: dir) { connection in
            _ = try? connection.receive()
            // "Compare the code", though the sender's HELLO said nobody is there; then it holds on.
            try? connection.send(.hello(Hello(name: "pushy", flags: [.attended, .compare])))
            connection.setTimeouts(receive: .seconds(8), send: .seconds(8))
            while let frame = try? connection.receive() { answered.withLock { $0.append(frame) } }
        }
        FileTree.writeText(dir.at("a.txt"), "a")
        let sender = try TestSender(in: dir)
        #expect(sender.options.interaction == nil, "unattended: no terminal to compare a code on")
        let started = ContinuousClock.now
        #expect {
            _ = try Sender.send(try PreparedSend.scan([dir.at("a.txt")]), to: receiver.endpoint, identity: sender.identity, options: sender.options)
        } throws: { "\($0)".contains("nobody is at this sender to compare it") }
        #expect(ContinuousClock.now - started < .seconds(3), "refused at once, not after the decision's wait")
        usleep(300_000)
        let frames = answered.withLock { $0 }
        #expect(frames.map(\.type) == [.error], "no offer, only the refusal: \(frames.map(\.type))")
        if case .error(let error)? = frames.first { #expect(error.code == .protocolViolation) }
    }

    @Test func anImpostorForAVerifiedPeerReceivesNothingButARefusal() throws {
        let dir = TemporaryDirectory("hostile-rx-impostor")
        let received = Mutex<[Frame]>([])
        let receiver = try HostileReceiver(in: dir) { connection in
            // It answers like a real receiver that accepts everything.
            while let frame = try? connection.receive() {
                received.withLock { $0.append(frame) }
                if case .hello = frame { try? connection.send(.hello(Hello(name: "bob"))) }
                if case .entries = frame { try? connection.send(.decision(.accept)) }
                if case .offer = frame { try? connection.send(.decision(.accept)) }
            }
        }
        FileTree.writeText(dir.at("secret plans.txt"), "the plans")
        var sender = try TestSender(in: dir)
        let verifiedBob = String(repeating: "ab", count: 32)
        sender.options.expectedKey = .verified(fingerprint: verifiedBob, name: "bob")
        let prepared = try PreparedSend.scan([dir.at("secret plans.txt")])
        #expect {
            _ = try Sender.send(prepared, to: receiver.endpoint, identity: sender.identity, options: sender.options)
        } throws: { error in
            "\(error)".contains("but the peer you verified as \"bob\" has the key abababababababab")
                && "\(error)".contains("your trust in \"bob\" is untouched")
        }
        usleep(200_000)
        let frames = received.withLock { $0 }
        #expect(frames.count == 1, "nothing but one ERROR: \(frames.map(\.type))")
        if case .error(let error)? = frames.first {
            #expect(error.code == .identityChanged)
            #expect(!error.message.contains("plans"))
        } else {
            Issue.record("expected an ERROR, got \(frames)")
        }
    }
}
