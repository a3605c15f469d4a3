import ShareDocuments
import ShareTLS
import ShareTransport
import ShareWire

/// One send (or pairing, when `prepared` is nil) in progress: drives the ``SenderSession`` over
/// the connection. The session's actions go to the stage they belong to: ``SendNegotiation`` (the
/// code, the decision's time, how the receiver is known) and ``DataPump`` (the files' frames);
/// this type reads the connection, handles the receiver's frames, the user's cancel and the
/// receipt, and builds the report.
struct SendRun {
    let prepared: PreparedSend?
    let connection: SecureConnection
    let options: SendOptions
    let progress: (@Sendable (TransferProgress) -> Void)?
    var session = SenderSession()
    var outcome: Result<Receipt, SendError>?
    var verification = PeerVerification.unverified(.senderUnattended)
    /// Wakes a wait for the receiver when the user cancels.
    let cancelWake: WakeSignal
    /// The longest to wait for the receiver now.
    var receiveTimeout: Duration?
    private let negotiation: SendNegotiation
    /// The data stage, once the receiver accepted.
    private var pump: DataPump?
    /// How many frames failed to go out (the connection broke, or the receiver took nothing).
    private var unsentFrames = 0

    init(
        prepared: PreparedSend?, connection: SecureConnection, options: SendOptions, trust: TrustStore,
        progress: (@Sendable (TransferProgress) -> Void)?
    ) {
        self.prepared = prepared
        self.connection = connection
        self.options = options
        self.progress = progress
        self.cancelWake = options.cancellation?.wake ?? WakeSignal()
        // The user's cancel also ends a write that waits for a receiver taking nothing.
        connection.writeWakes = [cancelWake]
        self.negotiation = SendNegotiation(connection: connection, options: options, trust: trust, isPairing: prepared == nil)
    }

    /// The receiver's name from its HELLO.
    var peerName: String { session.peer?.name ?? "" }

    /// Runs the conversation; returns the receipt (empty for a pairing) and how the peer is known.
    mutating func execute() throws(SendError) -> (Receipt, PeerVerification) {
        defer { negotiation.withdraw("the send ended") }
        let hello = SendHandshake.hello(
            options: options, isPairing: prepared == nil, pinned: negotiation.pinned != nil, over: connection)
        setReceiveTimeout(options.connectTimeout)
        perform(session.start(hello))
        negotiation.start()
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
        if session.userAnswer == nil, let answer = negotiation.answerWake { wakes.append(answer) }
        let attended = session.peer?.flags.contains(.attended) ?? false
        let limit = negotiation.limit(attended: attended)
        let left = negotiation.started + limit - .now
        guard left > .zero else {
            let seconds = limit.components.seconds
            outcome = .failure(.failed(.local(PeerError(.timedOut, "no decision came within \(seconds) s"))))
            perform(session.fail(PeerError(.timedOut, "the sender waited \(seconds) s for a decision and gave up")))
            return
        }
        switch connection.waitForFrame(orWake: wakes, timeout: left) {
        case .woken:
            if cancelled() { return }
            guard let answer = negotiation.answer, session.userAnswer == nil else { return }
            perform(session.userAnswered(answer ? .confirmed : .rejected))
            if !answer { outcome = .failure(.codesDiffer(name: peerName)) }
        case .readable:
            // A frame that trickles in must be complete within the decision's time too.
            receiveOne(within: left)
        case .timedOut:
            break
        }
    }

    private mutating func setReceiveTimeout(_ timeout: Duration?) {
        receiveTimeout = timeout
        connection.setTimeouts(receive: timeout, send: options.idleTimeout)
    }

    /// Receives one frame within `limit` (nil: ``receiveTimeout``); when `limit` runs out, the caller
    /// that set it says what did not come.
    private mutating func receiveOne(within limit: Duration? = nil) {
        switch connection.next(orWake: [cancelWake], timeout: limit ?? receiveTimeout) {
        case .frame(let frame):
            perform(session.receive(frame))
        case .woken:
            _ = cancelled()
        case .timedOut:
            if limit != nil { return }
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
        options.onGreeted?(
            GreetedReceiver(
                name: hello.name, fingerprint: connection.peerFingerprint, address: connection.endpoint,
                verifiedAs: negotiation.pinned?.name))
        let showsCode = hello.flags.contains(.compare)
        if prepared == nil && !showsCode && !hello.flags.contains(.decided) {
            outcome = .failure(.cannotVerify(name: hello.name))
            perform(session.fail(PeerError(.cancelled, "the sender needs a person on the receiving side to compare the code")))
            return
        }
        if !hello.flags.contains(.decided) {
            // A DECISION that came with the HELLO (a refusal) means the offer must not go out (§4).
            if !pollReceiver() || session.decision != nil { return }
            if let prepared { perform(session.offer(prepared.manifest)) } else { perform(session.pair()) }
        }
        guard outcome == nil, let interaction = options.interaction else { return }
        negotiation.greeted(hello, interaction: interaction)
    }

    /// Whether the user cancelled; if so, tells the receiver (if it still can) and ends.
    private mutating func cancelled() -> Bool {
        guard options.cancellation?.isCancelled == true else { return false }
        if outcome == nil || isConnectionLoss(outcome) {
            let told = tell(PeerError(.cancelled, "the sender's user cancelled the transfer"))
            outcome = .failure(.cancelled(receiverTold: told))
        }
        return true
    }

    /// Ends the session with `error` and sends it to the receiver, waiting at most a second for the
    /// receiver's machine to acknowledge it; whether it did (not when the connection was lost
    /// already, broke, or the receiver was taking nothing).
    private mutating func tell(_ error: PeerError) -> Bool {
        let deadline = ContinuousClock.now + .seconds(1)
        connection.writeWakes = []
        connection.writeDeadline = deadline
        let unsent = unsentFrames
        let actions = session.fail(error)
        perform(actions)
        let sent = actions.contains { if case .send = $0 { true } else { false } } && unsentFrames == unsent
        return sent && connection.waitUntilAcknowledged(before: deadline)
    }

    private func isConnectionLoss(_ outcome: Result<Receipt, SendError>?) -> Bool {
        switch outcome {
        case .failure(.failed(.connectionLost))?, .failure(.transport)?: true
        default: false
        }
    }

    /// The report of a completed send.
    func report(_ receipt: Receipt, verification: PeerVerification) -> SendReport {
        guard let prepared else { preconditionFailure("a pairing has no report") }
        let manifest = prepared.manifest
        let items = manifest.items.enumerated().map { index, item in
            SendReport.Item(
                source: prepared.itemSources[index], name: item.name, isBundle: item.isBundle, isNote: item.kind == .note,
                outcome: SentItemOutcome(receipt.items[index].outcome), text: receipt.items[index].text)
        }
        let files = VerifiedFiles(manifest: manifest, digests: pump?.digests ?? [])
        let streamed = pump?.started ?? .now
        let pinnedName = negotiation.pinned.map(\.name).flatMap { $0 == session.peer?.name ? nil : $0 }
        return SendReport(
            peerName: session.peer?.name ?? "", pinnedName: pinnedName, peerFingerprint: connection.peerFingerprint,
            peerVerification: verification, endpoint: connection.endpoint, items: items, files: files,
            bytes: manifest.totalBytes, seconds: (ContinuousClock.now - streamed).seconds,
            waitedSeconds: (streamed - negotiation.started).seconds, peerTrustedBy: connection.peerTrustedBy,
            resumedBytes: pump?.resumedBytes ?? 0, compression: pump?.compressor?.statistics)
    }

    private mutating func perform(_ actions: [SenderSession.Action]) {
        for action in actions {
            switch action {
            case .send(let frame):
                do {
                    try connection.send(frame)
                } catch {
                    unsentFrames += 1
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
                negotiation.withdraw("answered")
                verification = negotiation.verification(userAnswer: session.userAnswer)
                if verification == .confirmedNow { negotiation.remember(peerName: session.peer?.name) }
                stream(have: have)
            case .declined(let decision):
                negotiation.withdraw("\"\(DisplayText.escape(peerName))\" decided: \(decision.code.description)")
                outcome = .failure(.declined(decision))
            case .verified:
                negotiation.withdraw("answered")
                negotiation.remember(peerName: session.peer?.name)
                outcome = .success(Receipt(items: []))
            case .completed(let receipt):
                pump?.reportProgress(force: true)
                outcome = .success(receipt)
            case .failed(let failure):
                negotiation.withdraw("the transfer ended: \(failure)")
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
                negotiation.withdraw("the connection failed")
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
        let pump = DataPump(
            prepared, have: have, zstd: session.features.contains(.zstd), connection: connection, options: options,
            progress: progress)
        self.pump = pump
        defer { pump.cancel() }
        do throws(TransportError) {
            pumping: while true {
                if cancelled() { return }
                let chunk: FileReader.Chunk
                switch try pump.next() {
                case .chunk(let ready):
                    chunk = ready
                case .finished:
                    break pumping
                case .behind:
                    if !pollReceiver() { return }
                    guard let next = pump.waitForReader() else { break pumping }
                    chunk = next
                }
                if let reason = try pump.frame(chunk) {
                    perform(session.fail(PeerError(.senderFailed, reason)))
                    return
                }
                if let cut = options.cutConnectionAfterBytes, pump.bytesSent - pump.resumedBytes >= cut {
                    try connection.flush()
                    connection.cancel()
                    throw .closed(endpoint: connection.endpoint)
                }
                if connection.pendingOutput == 0 && !pollReceiver() { return }
                pump.reportProgress(force: false)
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
        pump.reportProgress(force: true)
        setReceiveTimeout(options.receiptTimeout)
        perform(session.finishedStreaming())
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
}
