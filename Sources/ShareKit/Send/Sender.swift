import Foundation
import ShareDocuments
public import ShareTLS
public import ShareTransport
public import ShareWire
import ShareSystem

/// Sends prepared documents to one receiver over TLS (docs/PROTOCOL.md §5).
///
/// > Warning: ``send(_:toFirstOf:identity:options:progress:)`` blocks; call it from a dedicated
/// > thread (``sendAsync(_:toFirstOf:identity:options:progress:)`` does).
public enum Sender {
    /// Sends `prepared` to `endpoint` and returns what the receiver confirmed.
    /// - Throws: ``SendError``.
    public static func send(
        _ prepared: PreparedSend, to endpoint: Endpoint, identity: Identity, options: SendOptions,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) throws(SendError) -> SendReport {
        try send(prepared, toFirstOf: [endpoint], identity: identity, options: options, progress: progress)
    }

    /// Sends `prepared` to the first of `endpoints` (one peer's addresses, best first) that answers,
    /// and returns what the receiver confirmed.
    /// - Parameters:
    ///   - progress: called on the sending thread, at most ten times a second and once at the end.
    /// - Throws: ``SendError``.
    public static func send(
        _ prepared: PreparedSend, toFirstOf endpoints: [Endpoint], identity: Identity, options: SendOptions,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) throws(SendError) -> SendReport {
        let (connection, options, trust) = try open(endpoints, identity: identity, options: options)
        defer { close(connection, options: options) }
        var run = SendRun(prepared: prepared, connection: connection, options: options, trust: trust, progress: progress)
        let (receipt, verification) = try run.execute()
        return run.report(receipt, verification: verification)
    }

    /// Asks the receiver at the first of `endpoints` to verify identities (PAIR): both users
    /// compare the verification code; when both confirm, each side remembers the other.
    /// - Parameter options: its ``SendOptions/interaction`` asks this side's user (required).
    public static func pair(
        toFirstOf endpoints: [Endpoint], identity: Identity, options: SendOptions
    ) throws(SendError) -> PairingResult {
        let (connection, options, trust) = try open(endpoints, identity: identity, options: options)
        defer { close(connection, options: options) }
        let wasVerified = trust.peer(connection.peerFingerprint)
        var run = SendRun(prepared: nil, connection: connection, options: options, trust: trust, progress: nil)
        _ = try run.execute()
        return PairingResult(
            name: run.peerName, fingerprint: connection.peerFingerprint, endpoint: connection.endpoint,
            verifiedBefore: wasVerified)
    }

    /// Connects over TLS to the first of `endpoints` that answers and checks the receiver's key
    /// before anything is sent; returns the connection, the options with this side's fingerprint
    /// filled in, and the trust store the checks used.
    private static func open(
        _ endpoints: [Endpoint], identity: Identity, options: SendOptions
    ) throws(SendError) -> (SecureConnection, SendOptions, TrustStore) {
        ProcessSignals.ignoreBrokenPipes()
        if options.cancellation?.isCancelled == true { throw .cancelled }
        var trust = TrustStore()
        if let directory = options.configDirectory {
            do {
                trust = try TrustStore.load(from: directory)
            } catch {
                throw .trustStore(error.description)
            }
        }
        let context: TLSContext
        do {
            context = try TLSContext.client(identity: identity, anchors: options.trustAnchors)
        } catch {
            throw .identity("cannot set up TLS: \(error)")
        }
        let connection: SecureConnection
        do {
            connection = try SecureConnection.connect(
                toFirstOf: endpoints, context: context, connectTimeout: options.connectTimeout)
        } catch {
            throw .transport(error)
        }
        connection.rateLimit = options.rateLimit.map { RateLimiter(bytesPerSecond: $0) }
        // Keys first: nothing leaves this side before the receiver's key passed (PROTOCOL.md §1).
        if let expected = options.expectedKey, !expected.matches(connection.peerFingerprint) {
            try? connection.send(.error(PeerError(.identityChanged, "the sender expected another key and sent nothing")))
            connection.close()
            throw .identityMismatch(endpoint: connection.endpoint, expected: expected, actual: connection.peerFingerprint)
        }
        var options = options
        options.localFingerprint = identity.fingerprint
        return (connection, options, trust)
    }

    private static func close(_ connection: SecureConnection, options: SendOptions) {
        connection.close()
    }

    /// ``pair(toFirstOf:identity:options:)`` on a dedicated thread.
    public static func pairAsync(
        toFirstOf endpoints: [Endpoint], identity: Identity, options: SendOptions
    ) async throws(SendError) -> PairingResult {
        try await BlockingWork.run("share.pair") { () throws(SendError) -> PairingResult in
            try pair(toFirstOf: endpoints, identity: identity, options: options)
        }
    }

    /// ``send(_:toFirstOf:identity:options:progress:)`` on a dedicated thread; with
    /// ``SendOptions/retry``, a failed connection is followed by new ones (``RetryPolicy``) to the
    /// addresses `endpoints` gives then (`refresh`, e.g. the peer looked up again, or the same ones),
    /// each continuing from what the receiver holds.
    public static func sendAsync(
        _ prepared: PreparedSend, toFirstOf endpoints: [Endpoint], identity: Identity, options: SendOptions,
        refresh: (@Sendable () async -> [Endpoint])? = nil, progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(SendError) -> SendReport {
        var attempt = 1
        var addresses = endpoints
        var firstFailure: ContinuousClock.Instant?
        var accepted = false
        var options = options
        let accepting = AcceptanceFlag()
        options.acceptance = accepting
        while true {
            let current = addresses
            let attemptOptions = options
            do {
                var report = try await BlockingWork.run("share.send") { () throws(SendError) -> SendReport in
                    try send(prepared, toFirstOf: current, identity: identity, options: attemptOptions, progress: progress)
                }
                report.attempts = attempt
                return report
            } catch {
                accepted = accepted || accepting.isSet
                let failedAt = ContinuousClock.now
                let start = firstFailure ?? failedAt
                firstFailure = start
                guard let policy = options.retry, error.isRetryable(afterAcceptance: accepted),
                    options.cancellation?.isCancelled != true
                else { throw error }
                let remaining = policy.retryFor - (failedAt - start)
                let delay = policy.delay(beforeAttempt: attempt + 1)
                guard remaining > delay else { throw error }
                attempt += 1
                options.onReconnect?(Reconnection(attempt: attempt, reason: error.description, delay: delay, remaining: remaining))
                if await pause(delay, cancellation: options.cancellation) { throw .cancelled }
                if let refresh {
                    let fresh = await refresh()
                    if !fresh.isEmpty { addresses = fresh }
                }
            }
        }
    }

    /// Waits `delay`; returns true when the user cancelled meanwhile.
    private static func pause(_ delay: Duration, cancellation: SendCancellation?) async -> Bool {
        let end = ContinuousClock.now + delay
        while ContinuousClock.now < end {
            if cancellation?.isCancelled == true { return true }
            try? await Task.sleep(for: min(.milliseconds(100), end - .now))
        }
        return cancellation?.isCancelled == true
    }
}

/// The outcome of `share trust verify`.
public struct PairingResult: Sendable {
    /// The receiver's name as it calls itself.
    public var name: String
    /// Its fingerprint.
    public var fingerprint: Fingerprint
    /// Where it was reached.
    public var endpoint: String
    /// Its pin before this verification, if it was verified already.
    public var verifiedBefore: TrustStore.Peer?
}

/// One send (or pairing, when `prepared` is nil) in progress: drives the ``SenderSession`` over
/// the connection.
private struct SendRun {
    let prepared: PreparedSend?
    let connection: SecureConnection
    let options: SendOptions
    let trust: TrustStore
    let progress: (@Sendable (TransferProgress) -> Void)?
    var session = SenderSession()
    var outcome: Result<Receipt, SendError>?
    var negotiationStarted = ContinuousClock.now
    var streamStarted: ContinuousClock.Instant?
    var lastProgress: ContinuousClock.Instant?
    var bytesSent: UInt64 = 0
    var filesSent = 0
    /// Each sent file's SHA-256, one after another (``VerifiedFiles``).
    var digests: [UInt8] = []
    var verification = PeerVerification.unverified(.senderUnattended)
    /// The question about the code, while the user is asked.
    var question: (ticket: PromptTicket, answer: PendingAnswer<Bool>)?
    /// Wakes a wait for the receiver when the user cancels.
    let cancelWake: WakeSignal
    /// The longest to wait for the receiver now.
    var receiveTimeout: Duration?
    var currentFile = -1
    /// Bytes the receiver already held of this offer and that did not have to be sent again.
    var resumedBytes: UInt64 = 0
    /// While ZSTD is in use: the compressor of the reader thread, and how fast the network takes
    /// what this thread writes (docs/PROTOCOL.md §8).
    var compressor: ChunkCompressor?
    var pace: LinkPace?

    init(
        prepared: PreparedSend?, connection: SecureConnection, options: SendOptions, trust: TrustStore,
        progress: (@Sendable (TransferProgress) -> Void)?
    ) {
        self.prepared = prepared
        self.connection = connection
        self.options = options
        self.trust = trust
        self.progress = progress
        self.cancelWake = options.cancellation?.wake ?? WakeSignal()
    }

    /// The receiver's name from its HELLO.
    var peerName: String { session.peer?.name ?? "" }

    private var pinned: TrustStore.Peer? { trust.peer(connection.peerFingerprint) }

    /// Runs the conversation; returns the receipt (empty for a pairing) and how the peer is known.
    mutating func execute() throws(SendError) -> (Receipt, PeerVerification) {
        defer { question?.ticket.withdraw("the send ended") }
        var flags: HelloFlags = []
        if options.interaction != nil {
            flags.insert(.attended)
            if prepared == nil || (pinned == nil && connection.peerTrustedBy == nil) { flags.insert(.compare) }
        }
        setReceiveTimeout(options.connectTimeout)
        let features: HelloFeatures = [.resume, options.compression.helloFeatures]
        perform(session.start(Hello(name: options.deviceName, features: features, flags: flags)))
        negotiationStarted = .now
        while outcome == nil {
            if cancelled() { break }
            switch session.state {
            case .greeted, .negotiating:
                negotiate()
            default:
                receiveOne()
            }
        }
        switch outcome {
        case .success(let receipt): return (receipt, verification)
        case .failure(let error): throw error
        case nil: preconditionFailure("the send loop ends only with an outcome")
        }
    }

    /// While the receiver (and perhaps this side's user) decides: waits for a frame from the
    /// receiver or the user's answer, whichever comes first, within the decision timeout.
    private mutating func negotiate() {
        // Once answered, the answer's wake stays signalled: wait on it only while the user is asked.
        var wakes = [cancelWake]
        if session.userAnswer == nil, let answer = question?.answer { wakes.append(answer.wake) }
        let attended = session.peer?.flags.contains(.attended) ?? false
        let limit = attended ? options.decisionTimeout : options.unattendedDecisionTimeout
        let left = negotiationStarted + limit - .now
        guard left > .zero else {
            let seconds = limit.components.seconds
            outcome = .failure(.failed(.local(PeerError(.timedOut, "no decision came within \(seconds) s"))))
            perform(session.fail(PeerError(.timedOut, "the sender waited \(seconds) s for a decision and gave up")))
            return
        }
        switch connection.waitForFrame(orWake: wakes, timeout: left) {
        case .woken:
            if cancelled() { return }
            guard let answer = question?.answer.value, session.userAnswer == nil else { return }
            perform(session.userAnswered(answer ? .confirmed : .rejected))
            if !answer { outcome = .failure(.codesDiffer(name: peerName)) }
        case .readable:
            receiveOne()
        case .timedOut:
            break
        }
    }

    private mutating func setReceiveTimeout(_ timeout: Duration?) {
        receiveTimeout = timeout
        connection.setTimeouts(receive: timeout, send: options.idleTimeout)
    }

    private mutating func receiveOne() {
        switch connection.next(orWake: [cancelWake], timeout: receiveTimeout) {
        case .frame(let frame):
            perform(session.receive(frame))
        case .woken:
            _ = cancelled()
        case .timedOut:
            let seconds = receiveTimeout?.components.seconds ?? 0
            let what =
                session.state == .awaitingHello
                ? "the receiver did not answer the greeting within \(seconds) s"
                : "no receipt came within \(seconds) s after the last file"
            outcome = .failure(.failed(.local(PeerError(.timedOut, what))))
            perform(session.fail(PeerError(.timedOut, "the sender gave up: \(what)")))
        case .end:
            connectionClosed()
        case .failure(let error):
            handle(error)
        }
    }

    /// The receiver greeted us: send the offer (or the pairing request), and ask the user about
    /// the code when the receiver shows it.
    private mutating func greeted(_ hello: Hello) {
        let showsCode = hello.flags.contains(.compare)
        if prepared == nil && !showsCode && !hello.flags.contains(.decided) {
            outcome = .failure(.cannotVerify(name: hello.name))
            perform(session.fail(PeerError(.cancelled, "the sender needs a person on the receiving side to compare the code")))
            return
        }
        if !hello.flags.contains(.decided) {
            if let prepared { perform(session.offer(prepared.manifest)) } else { perform(session.pair()) }
        }
        guard outcome == nil, let interaction = options.interaction else { return }
        if showsCode {
            let ticket = PromptTicket()
            let answer = PendingAnswer<Bool>()
            question = (ticket, answer)
            let comparison = CodeComparison(
                peerName: hello.name, pinnedName: pinned?.name, peerFingerprint: connection.peerFingerprint,
                verificationCode: VerificationCode.between(connection.peerFingerprint, localFingerprint),
                isPairing: prepared == nil)
            BlockingWork.start("share.compare") { answer.set(interaction.compareCode(comparison, ticket)) }
        }
        if !hello.flags.contains(.decided) {
            interaction.waiting(
                WaitingForReceiver(peerName: hello.name, receiverAsksItsUser: hello.flags.contains(.attended)))
        }
    }

    /// Whether the user cancelled; if so, tells the receiver and ends.
    private mutating func cancelled() -> Bool {
        guard options.cancellation?.isCancelled == true else { return false }
        if outcome == nil || isConnectionLoss(outcome) {
            outcome = .failure(.cancelled)
            perform(session.fail(PeerError(.cancelled, "the sender's user cancelled the transfer")))
        }
        return true
    }

    private func isConnectionLoss(_ outcome: Result<Receipt, SendError>?) -> Bool {
        switch outcome {
        case .failure(.failed(.connectionLost))?, .failure(.transport)?: true
        default: false
        }
    }

    /// Remembers the receiver as verified (both users compared the code).
    private func remember() {
        guard let directory = options.configDirectory, let name = session.peer?.name else { return }
        let fingerprint = connection.peerFingerprint
        try? TrustStore.update(in: directory) { $0.pin(fingerprint, name: name, verification: .code) }
    }

    /// This side's fingerprint, from the TLS context's identity.
    private var localFingerprint: Fingerprint {
        guard let own = options.localFingerprint else { preconditionFailure("Sender sets localFingerprint") }
        return own
    }

    /// How the receiver is known once the offer was accepted.
    private func currentVerification() -> PeerVerification {
        if session.userAnswer == .confirmed { return pinned != nil ? .verified : .confirmedNow }
        if pinned != nil { return .verified }
        if connection.peerTrustedBy != nil { return .teamCA }
        return .unverified(options.interaction == nil ? .senderUnattended : .receiverUnattended)
    }

    /// The report of a completed send.
    func report(_ receipt: Receipt, verification: PeerVerification) -> SendReport {
        guard let prepared else { preconditionFailure("a pairing has no report") }
        let manifest = prepared.manifest
        let items = manifest.items.enumerated().map { index, item in
            SendReport.Item(
                source: prepared.itemSources[index], name: item.name, isBundle: item.isBundle,
                outcome: receipt.items[index].outcome, text: receipt.items[index].text)
        }
        let files = VerifiedFiles(manifest: manifest, digests: digests)
        let streamed = streamStarted ?? .now
        let pinnedName = pinned.map(\.name).flatMap { $0 == session.peer?.name ? nil : $0 }
        return SendReport(
            peerName: session.peer?.name ?? "", pinnedName: pinnedName, peerFingerprint: connection.peerFingerprint,
            peerVerification: verification, endpoint: connection.endpoint, items: items, files: files,
            bytes: manifest.totalBytes, seconds: (ContinuousClock.now - streamed).seconds,
            waitedSeconds: (streamed - negotiationStarted).seconds, peerTrustedBy: connection.peerTrustedBy,
            resumedBytes: resumedBytes, compression: compressor?.statistics)
    }

    private mutating func perform(_ actions: [SenderSession.Action]) {
        for action in actions {
            switch action {
            case .send(let frame):
                do {
                    try connection.send(frame)
                } catch {
                    if outcome == nil { outcome = .failure(.transport(error)) }
                }
            case .greeted(let hello):
                setReceiveTimeout(nil)
                greeted(hello)
            case .stream(let have):
                options.acceptance?.set()
                if !have.isEmpty, let prepared {
                    options.onResume?(
                        Resumption(heldBytes: have.reduce(0) { $0 + $1.offset }, totalBytes: prepared.manifest.totalBytes))
                }
                question?.ticket.withdraw("answered")
                verification = currentVerification()
                if verification == .confirmedNow { remember() }
                stream(have: have)
            case .declined(let decision):
                question?.ticket.withdraw("\"\(DisplayText.escape(peerName))\" decided: \(decision.code.description)")
                outcome = .failure(.declined(decision))
            case .verified:
                question?.ticket.withdraw("answered")
                remember()
                outcome = .success(Receipt(items: []))
            case .completed(let receipt):
                reportProgress(force: true)
                outcome = .success(receipt)
            case .failed(let failure):
                question?.ticket.withdraw("the transfer ended: \(failure)")
                if outcome == nil { outcome = .failure(.failed(Self.naming(connection.endpoint, in: failure))) }
            case .close:
                break
            }
        }
    }

    /// A lost connection says which receiver it was with, as the transport's own errors do.
    private static func naming(_ endpoint: String, in failure: TransferFailure) -> TransferFailure {
        guard case .connectionLost(let during) = failure else { return failure }
        return .connectionLost(during: "with \(endpoint) " + during)
    }

    private mutating func handle(_ error: ConnectionError) {
        switch error {
        case .wire(let wire):
            perform(session.fail(wire))
        case .transport(let transport):
            if case .closed = transport {
                connectionClosed()
            } else if outcome == nil {
                if cancelled() { return }
                question?.ticket.withdraw("the connection failed")
                outcome = .failure(.transport(transport))
            }
        }
    }

    private mutating func connectionClosed() {
        if cancelled() { return }
        perform(session.connectionClosed())
    }

    /// Streams every file without waiting for the receiver, checking between writes whether it
    /// sent something (an ERROR) so a failed transfer stops at once.
    private mutating func stream(have: [HaveRecord]) {
        guard let prepared else { return }
        setReceiveTimeout(options.idleTimeout)
        streamStarted = .now
        if session.features.contains(.zstd),
            !(options.compression.rawToThisMachine && connection.socket.peerIsThisMachine)
        {
            let pace = LinkPace()
            self.pace = pace
            compressor = ChunkCompressor(settings: options.compression, types: options.compressedTypes, pace: pace)
        }
        let reader = FileReader(prepared, have: have, compressor: compressor, shared: options.sharedSource)
        reader.start()
        defer { reader.cancel() }
        do throws(TransportError) {
            while true {
                if cancelled() { return }
                let chunk: FileReader.Chunk
                if let ready = reader.nextIfReady() ?? reader.next(within: .milliseconds(2)) {
                    // A short wait lets small files that follow each other share one TLS write.
                    chunk = ready
                } else {
                    if reader.isFinished { break }
                    // The disk is behind: send what is buffered rather than sit on it.
                    try paced(0) { () throws(TransportError) in try connection.flush() }
                    if !pollReceiver() { return }
                    guard let next = reader.next() else { break }
                    chunk = next
                }
                guard try frame(chunk) else { return }
                if let cut = options.cutConnectionAfterBytes, bytesSent - resumedBytes >= cut {
                    try connection.flush()
                    connection.cancel()
                    throw .closed(endpoint: connection.endpoint)
                }
                if connection.pendingOutput == 0 && !pollReceiver() { return }
                reportProgress(force: false)
            }
            try connection.flush()
        } catch {
            if cancelled() { return }
            // The receiver may have explained why it stopped reading: look for its ERROR first.
            connection.setTimeouts(receive: .seconds(2), send: .seconds(2))
            if let frame = try? connection.receive() {
                perform(session.receive(frame))
            }
            if outcome == nil, case .timedOut = error {
                let seconds = options.idleTimeout.components.seconds
                outcome = .failure(
                    .failed(.local(PeerError(.timedOut, "the receiver took no data for \(seconds) s (asleep, or its link is gone)"))))
            }
            if outcome == nil { outcome = .failure(.transport(error)) }
            return
        }
        reportProgress(force: true)
        setReceiveTimeout(options.receiptTimeout)
        perform(session.finishedStreaming())
    }

    /// Turns one step of the reader into frames; false when the reader failed (the transfer ends).
    private mutating func frame(_ chunk: FileReader.Chunk) throws(TransportError) -> Bool {
        switch chunk {
        case .data(let index, let offset, let encoding, let bytes):
            currentFile = index
            try paced(FrameType.headerSize + FrameType.dataHeaderSize + bytes.count) { () throws(TransportError) in
                try connection.enqueueData(fileIndex: UInt32(index), offset: offset, encoding: encoding, bytes: bytes)
            }
            if case .zstd(let rawLength) = encoding { bytesSent += UInt64(rawLength) } else { bytesSent += UInt64(bytes.count) }
        case .resumed(_, let offset):
            resumedBytes += offset
            bytesSent += offset
        case .end(let index, var digest):
            if options.corruptDigestOfFile == index { digest[0] ^= 0xFF }
            try connection.enqueue(.fileEnd(fileIndex: UInt32(index), sha256: digest))
            digests.append(contentsOf: digest)
            filesSent = index + 1
        case .failure(let reason):
            perform(session.fail(PeerError(.senderFailed, reason)))
            return false
        case .batch(let steps):
            for step in steps {
                guard try frame(step) else { return false }
            }
        }
        return true
    }

    /// Runs `write`, which hands `bytes` to the connection (and may write to the socket), and tells
    /// the compressor's ``LinkPace`` how long it took.
    private func paced(_ bytes: Int, _ write: () throws(TransportError) -> Void) throws(TransportError) {
        guard let pace else { return try write() }
        let started = ContinuousClock.now
        try write()
        pace.wrote(bytes: bytes, in: .now - started, queued: connection.socket.unacknowledgedBytes)
    }

    /// Handles anything the receiver sent meanwhile; returns false when the transfer is over.
    private mutating func pollReceiver() -> Bool {
        do {
            while let frame = try connection.receiveIfReady() {
                perform(session.receive(frame))
                if outcome != nil { return false }
            }
        } catch {
            handle(error)
        }
        return outcome == nil
    }

    private mutating func reportProgress(force: Bool) {
        guard let progress, let streamStarted, let prepared else { return }
        let now = ContinuousClock.now
        if !force, let lastProgress, now - lastProgress < .milliseconds(100) { return }
        lastProgress = now
        progress(
            TransferProgress(
                bytesDone: bytesSent, bytesTotal: prepared.manifest.totalBytes, filesDone: filesSent,
                filesTotal: prepared.manifest.fileCount, elapsed: now - streamStarted, resumedBytes: resumedBytes))
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
