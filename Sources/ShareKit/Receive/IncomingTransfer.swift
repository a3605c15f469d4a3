import ShareDocuments
import ShareTLS
import ShareTransport
import ShareWire

/// One incoming connection: the TLS handshake, then the ``ReceiverSession`` driven over it. The
/// session's actions go to the stage they belong to: ``ReceiveHandshake`` (TLS, the offer deadline,
/// the answer to HELLO), ``OfferDecision`` (policy, prompt, pairing), ``DataIntake`` (frames to a
/// ``FileWriter`` on its own thread, progress) and ``TransferCommit`` (a ``StagingArea`` in the inbox
/// for the commit, and an ``ImportBatch`` that hands each committed document to its importer before
/// the receipt goes out). This type reads the connection, polices the sender's pace and carries the
/// session's frames out.
struct IncomingTransfer {
    let configuration: ReceiverConfiguration
    let events: ReceiverEvents
    let control: ConnectionControl

    private let handshake: ReceiveHandshake
    private let decision: OfferDecision
    private let data: DataIntake
    private let commitment: TransferCommit
    private var connection: SecureConnection?
    private var session: ReceiverSession
    private var finished = false

    init(
        socket: TCPSocket, context: TLSContext, configuration: ReceiverConfiguration, events: ReceiverEvents,
        limiter: PromptLimiter, localFingerprint: Fingerprint, control: ConnectionControl,
        currentName: @escaping @Sendable () -> String, admission: Admission, admissionID: Int,
        supersede: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.control = control
        self.configuration = configuration
        self.events = events
        let gate = ReceiveGate(configuration: configuration, limiter: limiter)
        let handshake = ReceiveHandshake(
            socket: socket, context: context, configuration: configuration, events: events, gate: gate, control: control,
            currentName: currentName, admission: admission, admissionID: admissionID)
        self.handshake = handshake
        self.decision = OfferDecision(
            configuration: configuration, events: events, control: control, gate: gate, handshake: handshake,
            localFingerprint: localFingerprint)
        self.data = DataIntake(configuration: configuration, events: events)
        self.commitment = TransferCommit(configuration: configuration, events: events, control: control, supersede: supersede)
        self.session = ReceiverSession(localName: configuration.deviceName)
        self.rateWindow = RateWindow(length: configuration.rateWindow, minimumRate: configuration.minimumRate)
    }

    mutating func run() {
        defer { handshake.disarm() }
        guard let connection = handshake.accept() else { return }
        self.connection = connection
        defer {
            data.cancel()
            commitment.discard()
            closeGracefully()
        }
        if !control.established() { return }
        setTimeouts(receive: configuration.handshakeTimeout)
        while !finished {
            if control.isStopping {
                perform(session.fail(stoppedError))
                continue
            }
            receiveOne()
            // About to wait for the network: hand the disk thread what this read brought.
            if let connection = self.connection, !connection.hasBufferedFrame { data.flush() }
            if !finished, let failure = data.failure {
                perform(session.fail(failure))
            }
        }
    }

    /// What the sender is told when this receiver's user stops it.
    static let stopped = PeerError(.cancelled, "the receiver was stopped by its user; nothing was placed")

    /// What the sender is told when the connection ends from this side: the receiver stopped, or
    /// dropped it to make room (``Admission``).
    private var stoppedError: PeerError {
        control.droppedReason.map { PeerError(.busy, $0) } ?? Self.stopped
    }

    /// The longest the connection waits for the sender now.
    private var receiveTimeout: Duration?

    /// When the sender was last heard (a whole frame arrived), or the current wait began: the
    /// silence ``receiveTimeout`` allows counts from here, across reads and rate windows (and, while
    /// a rule bounds the whole phase, from a later byte of a frame still arriving).
    private var lastHeard = ContinuousClock.now

    /// Sets how long to wait for the sender (and for the socket to take what this side sends).
    private mutating func setTimeouts(receive: Duration?) {
        receiveTimeout = receive
        lastHeard = .now
        connection?.setTimeouts(receive: receive, send: configuration.idleTimeout)
    }

    /// The sender's pace, while it is expected to send.
    private var rateWindow: RateWindow

    /// The offer's first frame arrived and its ENTRIES are still coming: from here the hard
    /// ``ReceiverConfiguration/offerDeadline`` gives way to the rate rule of the data phase, so a big
    /// offer over a slow link is not cut off, and a peer dripping entries is still ended (and, having
    /// made no complete offer yet, can still be dropped to make room: ``Admission``).
    private var offerArriving = false

    /// Reads one frame and acts on it; a stopping receiver, a silent sender or one that drips data
    /// slower than ``ReceiverConfiguration/minimumRate`` ends the session.
    private mutating func receiveOne() {
        guard let connection else { return }
        var timeout = receiveTimeout
        // Whether the wait ends with the rate window rather than with the silence timeout.
        var waitEndsWithWindow = false
        // Whether the sender must keep up ``ReceiverConfiguration/minimumRate`` now: it is expected to
        // send data (accepted, and the code confirmed if compared), or its offer is arriving. Read
        // here field by field: a computed property of the transfer, called twice per frame, made the
        // compiler copy the whole (resiliently laid out) transfer each time, ~3 % of the receiver's
        // CPU for many small files.
        let policed = (session.state == .receiving
            && (!session.showsCode || session.senderVerification == .confirmed)) || offerArriving
        // Whether the silence timeout counts bytes rather than whole frames: while a rule bounds the
        // whole phase (the offer deadline until the offer's first frame, the rate rule after it), a
        // frame may take longer than the timeout to arrive, as long as its bytes keep coming.
        let countsBytes = policed || session.state == .awaitingHello || session.state == .awaitingOffer
        // The sender's silence counts from the last frame it sent (or a later byte, see above), not
        // from this read: a read that ends with a rate window does not start it again.
        let silentSince = countsBytes ? max(lastHeard, connection.lastArrival) : lastHeard
        if let limit = receiveTimeout {
            let left = silentSince + limit - .now
            guard left > .zero else {
                perform(session.fail(silenceError))
                return
            }
            timeout = left
        }
        if policed {
            let wait = rateWindow.wait(within: timeout, bytesReceived: connection.bytesReceived)
            timeout = wait.timeout
            waitEndsWithWindow = wait.endsWithWindow
        }
        let arrival = connection.next(orWake: [control.wake], timeout: timeout)
        if case .frame = arrival { lastHeard = .now }
        if policed {
            switch rateWindow.check(bytesReceived: connection.bytesReceived) {
            case .open:
                break
            case .tooSlow(let error):
                perform(session.fail(error))
                return
            case .passed:
                if case .timedOut = arrival { return }
            }
        }
        // A wait for the window's end may time out a moment early (the poll's clock is coarser than
        // this one): that is not the sender's silence; the next call checks the window. Nor is a
        // wait that ended a moment before the silence did.
        if case .timedOut = arrival, waitEndsWithWindow || !silenceReached(since: silentSince) { return }
        switch arrival {
        case .frame(let frame):
            if case .offer = frame {
                offerArriving = true
                handshake.disarm()
                // The rest of the offer is bounded by the rate rule; silence by the idle timeout.
                setTimeouts(receive: configuration.idleTimeout)
            }
            perform(session.receive(frame))
        case .woken:
            perform(session.fail(stoppedError))
        case .timedOut:
            // Bytes of a frame arrived meanwhile: not silence (the next call measures from them).
            if countsBytes && connection.lastArrival > silentSince { return }
            perform(session.fail(silenceError))
        case .failure(.wire(let error)):
            perform(session.fail(error))
        case .end:
            perform(control.isStopping ? session.fail(stoppedError) : session.connectionClosed())
        case .failure(.transport(let error)):
            perform(control.isStopping ? session.fail(stoppedError) : session.connectionClosed(because: Self.reason(error)))
        }
    }

    /// Whether the sender has been silent for all of ``receiveTimeout`` since `start` (allowing for
    /// a poll that wakes a little early).
    private func silenceReached(since start: ContinuousClock.Instant) -> Bool {
        guard let receiveTimeout else { return true }
        return ContinuousClock.now - start >= receiveTimeout - .milliseconds(20)
    }

    /// What the sender is told when it was silent for ``receiveTimeout``.
    private var silenceError: PeerError {
        let seconds = receiveTimeout?.components.seconds ?? 0
        return PeerError(.timedOut, "the receiver heard nothing from the sender for \(seconds) s")
    }

    /// Why a connection failed, when it was more than the sender going away (closed or reset).
    private static func reason(_ error: TransportError) -> String? {
        switch error {
        case .closed, .tls(_, .connectionClosed), .tls(_, .connectionReset): nil
        default: error.description
        }
    }

    private mutating func perform(_ actions: [ReceiverSession.Action]) {
        for action in actions {
            guard let connection else { return }
            switch action {
            case .send(let frame):
                do {
                    try connection.send(frame)
                } catch {
                    // The peer is gone; the session learns it on the next read.
                }
            case .greet(let peer):
                let answer = handshake.answer(peer, over: connection)
                perform(
                    session.answerHello(
                        name: answer.name, features: answer.features, flags: answer.flags, refusal: answer.refusal))
            case .decide(let peer, let manifest):
                handshake.disarm()
                offerArriving = false
                rateWindow.reset()
                perform(decide(peer, manifest))
            case .verify(let peer):
                handshake.disarm()
                perform(pair(peer))
            case .codeRejectedBySender:
                decision.codesDiffer()
            case .mutuallyVerified:
                decision.mutuallyVerified(peerName: session.peer?.name, over: connection)
            case .verified:
                if let pairing = decision.pairing { events.finished(.paired(pairing, confirmed: true)) }
            case .openFile(let index, let offset):
                commitment.opened(fileIndex: index, offset: offset)
                if let error = data.open(fileIndex: index, offset: offset) {
                    perform(session.fail(error))
                    return
                }
            case .write(_, let chunk):
                if let error = data.write(chunk) {
                    perform(session.fail(error))
                    return
                }
            case .closeFile(let index, let digest):
                if let error = data.close(fileIndex: index, digest: digest) {
                    perform(session.fail(error))
                    return
                }
            case .commit:
                let result = commitment.commit(
                    decision.offer, over: connection, peerName: session.peer?.name ?? "",
                    verifiedNow: decision.verifiedNow, data: data)
                switch result {
                case .success(let receipt): perform(session.committed(receipt))
                case .failure(let error): perform(session.fail(error))
                }
            case .declined(let refusal):
                if let offer = decision.offer {
                    events.finished(.declined(offer, OfferAnswer(refusal)))
                } else if let pairing = decision.pairing {
                    events.finished(.paired(pairing, confirmed: false))
                } else if session.isPairing, let peer = session.peer {
                    // A pairing this receiver declined without asking anyone (it shows no code).
                    events.finished(.paired(decision.pairingRequest(peer, over: connection), confirmed: false))
                } else if let peer = session.peer {
                    events.finished(
                        .refusedSender(
                            peerName: peer.name, peerFingerprint: connection.peerFingerprint,
                            peerAddress: connection.endpoint, OfferAnswer(refusal),
                            claimsNameOf: decision.handshake.judgement?.namesake))
                }
            case .completed:
                // After the RECEIPT went out: only now may the user interface act on it (stop a
                // `--once` receiver, say) without cutting the sender off. Imports the receipt did
                // not wait for end first.
                commitment.completed(over: connection)
            case .failed(let failure):
                let keeping = !decision.codesRejected && TransferCommit.keepsPartial(failure)
                let keptBytes = commitment.settleFailure(keeping: keeping, data: data)
                control.currentTicket?.withdraw("the transfer ended: \(failure)")
                if let pairing = decision.pairing {
                    events.finished(.paired(pairing, confirmed: false))
                    continue
                }
                guard decision.offer != nil || session.peer != nil else {
                    // Nothing was said: a connection that never became a transfer.
                    let reason = handshake.deadlinePassed ? handshake.slowReason : failure.description
                    events.finished(.refused(peerAddress: connection.endpoint, reason: reason))
                    continue
                }
                events.finished(
                    .failed(
                        peerName: session.peer?.name, peerFingerprint: connection.peerFingerprint,
                        peerAddress: connection.endpoint, failure, keptBytes: keptBytes))
            case .close:
                finished = true
            }
        }
    }

    /// Asks the user (on another thread) while watching the connection: a VERIFY is taken in, and a
    /// sender that gives up (ERROR, closed connection) withdraws the question at once. Returns the
    /// user's decision, or nil when the transfer ended meanwhile.
    private mutating func ask(_ question: @escaping @Sendable (PromptTicket) -> Decision) -> Decision? {
        guard let connection else { return nil }
        let ticket = PromptTicket()
        let answer = PendingAnswer<Decision>()
        control.asking(ticket)
        defer { control.asking(nil) }
        BlockingWork.start("share.ask") { answer.set(question(ticket)) }
        setTimeouts(receive: configuration.idleTimeout)
        while answer.value == nil && !finished {
            switch connection.waitForFrame(orWake: [answer.wake, control.wake], timeout: nil) {
            case .woken, .timedOut:
                // Stopping withdrew the question: its answer comes at once.
                if control.isStopping { _ = answer.wake.wait(timeout: .seconds(5)) }
                if answer.value == nil && control.isStopping { break }
                continue
            case .readable:
                // The sender may well say nothing while a person decides: its silence counts from here.
                lastHeard = .now
                receiveOne()
            }
            if control.isStopping { break }
        }
        if finished {
            ticket.withdraw("the sender withdrew its offer")
            _ = answer.wake.wait(timeout: .seconds(5))
            return nil
        }
        // Whatever the sender says next (a VERIFY its user is still deciding on), the wait for it
        // starts with the answer.
        lastHeard = .now
        return answer.value
    }

    /// A pairing request: only a user who compares the codes can confirm it.
    private mutating func pair(_ peer: Hello) -> [ReceiverSession.Action] {
        guard let connection else { return [] }
        let decision = self.decision
        switch decision.pair(peer, over: connection, ask: { ask($0) }) {
        case .decided(let answer), .accepted(let answer, _): return session.decided(answer)
        case .stopped: return session.fail(stoppedError)
        case .ended: return []
        }
    }

    /// Decides on the offer (``OfferDecision``) and, when it is accepted, prepares the staging area
    /// (``TransferCommit``) and starts taking data (``DataIntake``).
    private mutating func decide(_ peer: Hello, _ manifest: Manifest) -> [ReceiverSession.Action] {
        guard let connection else { return [] }
        let decision = self.decision
        let verdict = decision.decide(
            peer, manifest, over: connection, showsCode: session.showsCode,
            resumes: session.features.contains(.resume), ask: { ask($0) })
        let accepted: Decision
        let resumable: PartialTransfer?
        switch verdict {
        case .decided(let answer): return session.decided(answer)
        case .stopped: return session.fail(stoppedError)
        case .ended: return []
        case .accepted(let answer, let partial):
            accepted = answer
            resumable = partial
        }
        guard let offer = decision.offer else { return [] }
        let prepared: TransferCommit.Prepared
        do throws(ReceiveError) {
            prepared = try commitment.prepare(manifest, resumable: resumable)
        } catch {
            return session.fail(PeerError(.receiverFailed, error.messageForPeer))
        }
        switch prepared {
        case .completedBefore(let record, let have):
            setTimeouts(receive: configuration.idleTimeout)
            data.begin(offer, staging: nil, completedBefore: record)
            return session.decided(accepted, have: have)
        case .staged(let staging, let held, let have):
            data.begin(offer, staging: staging, held: held, payloadBuffers: connection.payloadBuffers)
            // While the sender's user still compares the code, wait as long as a person may take.
            let verifyPending = session.showsCode && session.senderVerification == nil
            setTimeouts(receive: verifyPending ? configuration.promptTimeout : configuration.idleTimeout)
            return session.decided(accepted, have: have)
        }
    }

    /// Sends close_notify, stops sending, and drains briefly so the last frame is not lost to a reset.
    private func closeGracefully() {
        guard let connection else { return }
        try? connection.flush()
        connection.closeGracefully(drainFor: .seconds(2))
    }
}
