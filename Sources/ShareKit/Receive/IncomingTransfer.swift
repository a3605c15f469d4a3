import Foundation
import ShareDocuments
import ShareTLS
import ShareTransport
import ShareWire

/// One incoming connection: the TLS handshake, then the ``ReceiverSession`` driven over it, with
/// a ``FileWriter`` on its own thread, a ``StagingArea`` in the inbox for the commit, and an
/// ``ImportBatch`` that hands each committed document to its importer before the receipt goes out.
struct IncomingTransfer {
    let socket: TCPSocket
    let context: TLSContext
    let configuration: ReceiverConfiguration
    let events: ReceiverEvents
    let gate: ReceiveGate
    /// This receiver's own fingerprint (for verification codes).
    let localFingerprint: Fingerprint
    let control: ConnectionControl
    /// The name this receiver is published under now (it changes after a DNS-SD collision).
    let currentName: @Sendable () -> String
    /// Ends another connection that holds the partial transfer this one continues (by its area name).
    let supersede: @Sendable (String) -> Void
    /// The receiver's connection slots, and this connection's place in them.
    let admission: Admission
    let admissionID: Int

    private var connection: SecureConnection?
    private var session: ReceiverSession
    private var judgement: ReceiveGate.Judgement?
    private var offer: IncomingOffer?
    private var pairing: PairingRequest?
    private var staging: StagingArea?
    private var writer: FileWriter?
    /// Decompresses zstd DATA, one chunk at a time, into at most its announced length.
    private let decompressor = ChunkDecompressor()
    private var finished = false
    /// Ends connections that have not made their offer in time (disarmed once they have).
    private var watchdog: Watchdog?
    private var slowReason: String {
        "the peer did not complete its TLS handshake and offer within \(configuration.offerDeadline.components.seconds) seconds"
    }
    /// The committed transfer, reported once the sender has its receipt and the imports ended.
    private var committedTransfer: ReceivedTransfer?
    /// The imports of the committed documents.
    private var imports: ImportBatch?
    private var dataStarted: ContinuousClock.Instant?
    private var lastProgress: ContinuousClock.Instant?
    private var bytesReceived: UInt64 = 0
    private var filesReceived = 0
    /// Whether both users compared the code during this transfer.
    private var verifiedNow = false
    /// Bytes of the offer this receiver already held when the transfer was continued.
    private var resumedBytes: UInt64 = 0
    /// The sender's user said the codes differ: nothing of the offer is kept.
    private var codesRejected = false
    /// The partial transfer this offer is (with RESUME): its key, sender and offer.
    private var resumable: PartialTransfer?
    /// The record of this offer when it was committed before (its receipt was lost): every file is
    /// already there, and nothing is placed again (docs/PROTOCOL.md §7, "Completed offers").
    private var completedBefore: CompletedOffer?

    init(
        socket: TCPSocket, context: TLSContext, configuration: ReceiverConfiguration, events: ReceiverEvents,
        limiter: PromptLimiter, localFingerprint: Fingerprint, control: ConnectionControl,
        currentName: @escaping @Sendable () -> String, admission: Admission, admissionID: Int,
        supersede: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.supersede = supersede
        self.localFingerprint = localFingerprint
        self.control = control
        self.socket = socket
        self.context = context
        self.configuration = configuration
        self.events = events
        self.currentName = currentName
        self.admission = admission
        self.admissionID = admissionID
        self.gate = ReceiveGate(configuration: configuration, limiter: limiter)
        self.session = ReceiverSession(localName: configuration.deviceName)
    }

    mutating func run() {
        let socket = self.socket
        let watchdog = Watchdog(after: configuration.offerDeadline) { socket.shutdown() }
        self.watchdog = watchdog
        defer { watchdog.cancel() }
        let connection: SecureConnection
        TestPause.at("handshake")
        do {
            connection = try SecureConnection.accept(socket, context: context, handshakeTimeout: configuration.handshakeTimeout)
        } catch {
            let reason = control.droppedReason ?? (watchdog.fired ? slowReason : error.description)
            events.finished(.refused(peerAddress: socket.remoteDescription, reason: reason))
            return
        }
        self.connection = connection
        connection.rateLimit = configuration.rateLimit.map { RateLimiter(bytesPerSecond: $0) }
        defer {
            writer?.cancel()
            staging?.discard()
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
            if let connection = self.connection, !connection.hasBufferedFrame { writer?.flush() }
            if !finished, let failure = writer?.failure {
                perform(session.fail(peerError(for: failure)))
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

    /// Sets how long to wait for the sender (and for the socket to take what this side sends).
    private mutating func setTimeouts(receive: Duration?) {
        receiveTimeout = receive
        connection?.setTimeouts(receive: receive, send: configuration.idleTimeout)
    }

    /// The start of the current rate window and the bytes received before it, while data flows.
    private var rateWindow: (start: ContinuousClock.Instant, bytes: UInt64)?

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
        if policed {
            let window = rateWindow ?? (ContinuousClock.now, connection.bytesReceived)
            rateWindow = window
            let windowLeft = max(window.start + configuration.rateWindow - .now, .milliseconds(1))
            waitEndsWithWindow = receiveTimeout.map { windowLeft < $0 } ?? true
            timeout = min(timeout ?? windowLeft, windowLeft)
        }
        let arrival = connection.next(orWake: [control.wake], timeout: timeout)
        if policed, let window = rateWindow, ContinuousClock.now - window.start >= configuration.rateWindow {
            let received = connection.bytesReceived - window.bytes
            let seconds = configuration.rateWindow.components.seconds
            if received < configuration.minimumRate * UInt64(seconds) {
                perform(
                    session.fail(
                        PeerError(
                            .timedOut,
                            "the sender is too slow: \(received) bytes in \(seconds) s; the receiver needs at least "
                                + "\(ByteCount.format(configuration.minimumRate))/s")))
                return
            }
            rateWindow = (ContinuousClock.now, connection.bytesReceived)
            if case .timedOut = arrival { return }
        }
        // A wait for the window's end may time out a moment early (the poll's clock is coarser than
        // this one): that is not the sender's silence; the next call checks the window.
        if case .timedOut = arrival, waitEndsWithWindow { return }
        switch arrival {
        case .frame(let frame):
            if case .offer = frame {
                offerArriving = true
                watchdog?.cancel()
            }
            perform(session.receive(frame))
        case .woken:
            perform(session.fail(stoppedError))
        case .timedOut:
            let seconds = receiveTimeout?.components.seconds ?? 0
            perform(session.fail(PeerError(.timedOut, "the receiver heard nothing from the sender for \(seconds) s")))
        case .failure(.wire(let error)):
            perform(session.fail(error))
        case .end:
            perform(control.isStopping ? session.fail(stoppedError) : session.connectionClosed())
        case .failure(.transport(let error)):
            perform(control.isStopping ? session.fail(stoppedError) : session.connectionClosed(because: Self.reason(error)))
        }
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
                perform(greet(peer))
            case .decide(let peer, let manifest):
                watchdog?.cancel()
                offerArriving = false
                rateWindow = nil
                perform(decide(peer, manifest))
            case .verify(let peer):
                watchdog?.cancel()
                perform(pair(peer))
            case .codeRejectedBySender:
                codesRejected = true
                control.currentTicket?.withdraw("the sender's user said the verification codes differ")
            case .mutuallyVerified:
                remember()
                verifiedNow = judgement?.pinned == nil
            case .verified:
                if let pairing { events.finished(.paired(pairing, confirmed: true)) }
            case .openFile(let index, let offset):
                if let completedBefore, let offer, offset != offer.manifest.fileSize(index) {
                    perform(session.fail(Self.changedSince(completedBefore, path: offer.manifest.filePath(index))))
                    return
                }
                writer?.open(fileIndex: index, offset: offset)
                bytesReceived += offset
            case .write(_, let chunk):
                let bytes: [UInt8]
                do {
                    bytes = try decompressor.fileBytes(of: chunk)
                } catch {
                    perform(session.fail(error))
                    return
                }
                writer?.write(bytes)
                bytesReceived += UInt64(bytes.count)
                reportProgress(force: false)
            case .closeFile(let index, let digest):
                if let completedBefore, let offer,
                    completedBefore.fileDigests.dropFirst(index).first != Hex.encode(digest)
                {
                    perform(session.fail(Self.changedSince(completedBefore, path: offer.manifest.filePath(index))))
                    return
                }
                writer?.close(fileIndex: index, expected: digest)
                filesReceived += 1
                if index == 0 { TestPause.at("data") }
            case .commit:
                perform(commit())
            case .declined(let decision):
                if let offer {
                    events.finished(.declined(offer, decision))
                } else if let pairing {
                    events.finished(.paired(pairing, confirmed: false))
                } else if let peer = session.peer {
                    events.finished(
                        .refusedSender(
                            peerName: peer.name, peerFingerprint: connection.peerFingerprint,
                            peerAddress: connection.endpoint, decision))
                }
            case .completed:
                // After the RECEIPT went out: only now may the user interface act on it (stop a
                // `--once` receiver, say) without cutting the sender off. Imports the receipt did
                // not wait for end first.
                let receiptArrived = senderClosedAfterReceipt()
                if var transfer = committedTransfer {
                    if let imports {
                        let inbox = Inbox(directory: configuration.inbox)
                        for (index, result) in imports.waitForAll().enumerated() where index < transfer.items.count {
                            transfer.items[index].result = result
                            transfer.items[index].path = result.path(inbox: inbox)
                        }
                        if !receiptArrived { recordDeliveries(imports) }
                    }
                    // The sender has its receipt: the same offer sent again is a new one.
                    if receiptArrived, let resumable { configuration.partials.forgetCompleted(resumable.id) }
                    events.finished(.received(transfer))
                }
            case .failed(let failure):
                var keptBytes: UInt64 = 0
                if !codesRejected && Self.keepsPartial(failure) {
                    writer?.drain()
                    staging?.keep()
                    if staging?.partial != nil { keptBytes = resumedBytes + UInt64(max(0, writer?.bytesWritten ?? 0)) }
                } else {
                    writer?.stop()
                    staging?.discard()
                }
                // Let go of the area (the writer holds it too) before the failure is reported: its lock
                // is free from then on, so `share inbox remove` and expiry can take it at once.
                let kept = staging?.partial != nil
                writer = nil
                staging = nil
                if kept { configuration.partials.expire() }
                control.currentTicket?.withdraw("the transfer ended: \(failure)")
                if let pairing {
                    events.finished(.paired(pairing, confirmed: false))
                    continue
                }
                guard offer != nil || session.peer != nil else {
                    // Nothing was said: a connection that never became a transfer.
                    let reason = watchdog?.fired == true ? slowReason : failure.description
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

    /// Answers the sender's HELLO: its key is judged first (blocked? policy? busy?), and only a
    /// sender that may make an offer is told to go on. The flags say whether a person here decides
    /// and whether the code is compared (docs/PROTOCOL.md §6).
    private mutating func greet(_ peer: Hello) -> [ReceiverSession.Action] {
        guard let connection else { return [] }
        TestPause.at("offer")
        let judgement = gate.evaluate(
            name: peer.name, fingerprint: connection.peerFingerprint, caTrustedBy: peerTrustedBy?.displayName)
        self.judgement = judgement
        let name = currentName()
        if case .refuse(let decision) = judgement.verdict {
            return session.answerHello(name: name, features: [], flags: [], refusal: decision)
        }
        let known = judgement.pinned != nil || peerTrustedBy != nil
        admission.identified(admissionID, known: known)
        if let busy = admission.busy(admissionID, known: known) {
            return session.answerHello(name: name, features: [], flags: [], refusal: busy)
        }
        var flags: HelloFlags = []
        if case .ask = judgement.verdict, events.canAsk() {
            flags.insert(.attended)
            let verifiedHere = judgement.pinned != nil || peerTrustedBy != nil
            if peer.flags.contains(.attended) && (!verifiedHere || peer.flags.contains(.compare)) {
                flags.insert(.compare)
            }
        }
        let features: HelloFeatures = configuration.decodesZstd ? [.resume, .zstd] : [.resume]
        return session.answerHello(name: name, features: features, flags: flags)
    }

    /// Pins the sender: both users confirmed the code.
    private func remember() {
        guard let directory = configuration.configDirectory, let connection, let name = session.peer?.name else { return }
        let fingerprint = connection.peerFingerprint
        try? TrustStore.update(in: directory) { $0.pin(fingerprint, name: name, verification: .code) }
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
            case .readable: receiveOne()
            }
            if control.isStopping { break }
        }
        if finished {
            ticket.withdraw("the sender withdrew its offer")
            _ = answer.wake.wait(timeout: .seconds(5))
            return nil
        }
        return answer.value
    }

    /// A pairing request: only a user who compares the codes can confirm it.
    private mutating func pair(_ peer: Hello) -> [ReceiverSession.Action] {
        guard let connection else { return [] }
        let request = PairingRequest(
            peerName: peer.name, peerFingerprint: connection.peerFingerprint, peerAddress: connection.endpoint,
            verificationCode: VerificationCode.between(connection.peerFingerprint, localFingerprint),
            pinnedName: judgement?.pinned?.name, claimsNameOf: judgement?.namesake)
        pairing = request
        if let busy = admission.startTransfer(admissionID, known: judgement?.pinned != nil || peerTrustedBy != nil) {
            return session.decided(busy)
        }
        let events = self.events
        guard let decision = ask({ events.pair(request, $0) }) else { return [] }
        if control.isStopping { return session.fail(stoppedError) }
        return session.decided(decision)
    }

    /// Applies the policy, checks free space and what the folder can hold, asks the user when the
    /// policy says so, and prepares the staging area when accepted.
    private mutating func decide(_ peer: Hello, _ manifest: Manifest) -> [ReceiverSession.Action] {
        guard let connection, let judgement else { return [] }
        TestPause.at("prompt")
        let fingerprint = connection.peerFingerprint
        let offer = IncomingOffer(
            peerName: peer.name, peerFingerprint: fingerprint, peerAddress: connection.endpoint, manifest: manifest,
            verificationCode: VerificationCode.between(fingerprint, localFingerprint), pinnedName: judgement.pinned?.name,
            comparesCode: session.showsCode, senderAttended: peer.flags.contains(.attended),
            claimsNameOf: judgement.namesake, peerTrustedBy: peerTrustedBy,
            peerCATrustProblem: connection.peerCATrustProblem)
        self.offer = offer
        if let busy = admission.startTransfer(admissionID, known: judgement.pinned != nil || peerTrustedBy != nil) {
            return session.decided(busy)
        }
        // With RESUME, the transfer can be continued later: the partial transfer this offer is (kept
        // from an earlier connection of the same key, when its user accepted it then).
        let offerID = OfferIdentity.of(manifest)
        var resumable: PartialTransfer?
        if session.features.contains(.resume) {
            let now = Date()
            resumable = PartialTransfer(
                id: PartialStore.areaName(fingerprint: fingerprint, offerID: offerID), senderName: peer.name,
                senderFingerprint: fingerprint.hex, offerID: Hex.encode(offerID), items: manifest.items.map(\.name),
                fileCount: manifest.fileCount, totalBytes: manifest.totalBytes, acceptedAt: now, updatedAt: now)
        }
        self.resumable = resumable
        let kept = resumable.flatMap { configuration.partials.kept($0) }
        if let kept { resumable?.acceptedAt = kept.acceptedAt }
        let done = resumable.flatMap { configuration.partials.completed($0) }
        // The same documents from the same key, accepted within the keep window, are not asked again
        // (unless the codes are to be compared now: that needs the person).
        let askAgain = (kept == nil && done == nil) || session.showsCode
        if case .ask = judgement.verdict, askAgain,
            !gate.allowPrompt(fingerprint: fingerprint, address: connection.endpoint)
        {
            return session.decided(Decision(.busy, message: "too many offers from this sender; try again in a minute"))
        }
        if done == nil, let refusal = storageRefusal(manifest, held: kept?.heldBytes ?? 0) {
            return session.decided(refusal)
        }
        let decision: Decision
        if case .ask = judgement.verdict, askAgain {
            let events = self.events
            guard let answer = ask({ events.decide(offer, $0) }) else { return [] }
            decision = answer
        } else {
            decision = .accept
        }
        if control.isStopping { return session.fail(stoppedError) }
        guard decision.isAccepted else { return session.decided(decision) }
        var have: [HaveRecord] = []
        do {
            if let resumable {
                control.continues(resumable.id)
                supersede(resumable.id)
            }
            let staging = try StagingArea(
                root: configuration.inbox, resumable: resumable, executableBits: configuration.executableBits,
                umask: configuration.umask)
            if let resumable, let record = configuration.partials.completed(resumable) {
                // Committed before (checked again now that this connection holds the area: a
                // commit of an older connection may have just passed its decision point).
                staging.finishCommit(record)
                completedBefore = record
                resumedBytes = manifest.totalBytes
                have = record.haveRecords(sizes: manifest.fileEntryIndices.map { manifest.entries[$0].size })
                setTimeouts(receive: configuration.idleTimeout)
                dataStarted = .now
                return session.decided(decision, have: have)
            }
            self.staging = staging
            try staging.prepare(manifest)
            staging.saveMetadata()
            let held = staging.heldFiles(manifest)
            have = held.map { HaveRecord(fileIndex: UInt32($0.fileIndex), offset: $0.offset, sha256: $0.digest) }
            resumedBytes = held.reduce(0) { $0 + $1.offset }
            let writer = FileWriter(
                staging: staging, manifest: manifest, held: held, budget: configuration.writerQueueBudget)
            writer.start()
            self.writer = writer
        } catch {
            staging?.discard()
            staging = nil
            return session.fail(PeerError(.receiverFailed, error.messageForPeer))
        }
        // While the sender's user still compares the code, wait as long as a person may take.
        let verifyPending = session.showsCode && session.senderVerification == nil
        setTimeouts(receive: verifyPending ? configuration.promptTimeout : configuration.idleTimeout)
        dataStarted = .now
        return session.decided(decision, have: have)
    }

    /// Whether a transfer that failed this way is kept to be continued: a lost connection, a
    /// timeout, a stop on either side, a full disk; never a transfer whose data or protocol was
    /// wrong.
    static func keepsPartial(_ failure: TransferFailure) -> Bool {
        switch failure.code {
        case nil, .cancelled?, .timedOut?, .receiverFailed?, .senderFailed?, .busy?, .internalError?: true
        default: false
        }
    }

    /// Why this receiver cannot store `manifest` as it is, if it cannot: not enough free space, or
    /// names its folder cannot hold apart.
    private func storageRefusal(_ manifest: Manifest, held: UInt64 = 0) -> Decision? {
        // Data is staged in the inbox; when the receive folder is on another filesystem, documents
        // placed there are copied once more.
        if let shortfall = FreeSpace.shortfall(
            for: manifest.totalBytes - min(held, manifest.totalBytes), in: [configuration.inbox, configuration.destination],
            maximumMargin: configuration.freeSpaceMargin)
        {
            return Decision(.insufficientSpace, message: shortfall)
        }
        if let clash = manifest.caseCollisions.first, let probe = try? StagingArea(root: configuration.inbox) {
            defer { probe.discard() }
            if probe.ignoresCase() {
                let more = manifest.caseCollisions.count > 1 ? " (and \(manifest.caseCollisions.count - 1) more such pairs)" : ""
                return Decision(
                    .cannotStore,
                    message: "the receiving folder ignores case, so it cannot hold both '\(DisplayText.escape(clash.first))' and '"
                        + "\(DisplayText.escape(clash.second))'\(more); rename one, or leave one out with --exclude")
            }
        }
        return nil
    }

    /// Waits for the disk thread, then commits every item.
    private mutating func commit() -> [ReceiverSession.Action] {
        if let completedBefore { return deliverAgain(completedBefore) }
        guard let writer, let staging, let offer, let connection else {
            return session.fail(PeerError(.internalError, "the receiver lost its staging area"))
        }
        let digests: [UInt8]
        switch writer.finish() {
        case .success(let verified): digests = verified
        case .failure(let failure): return session.fail(peerError(for: failure))
        }
        reportProgress(force: true)
        let manifest = offer.manifest
        let fingerprint = connection.peerFingerprint
        let now = Date()
        let metadata = manifest.items.map { item in
            InboxEntry(
                name: item.name, isBundle: item.isBundle, files: item.fileCount, bytes: item.byteCount,
                senderName: session.peer?.name ?? "", senderFingerprint: fingerprint.hex, receivedAt: now,
                declaredType: item.declaredType.isEmpty ? nil : item.declaredType,
                receiveFolder: configuration.destination)
        }
        let entries: [InboxEntry]
        do {
            entries = try staging.commit(manifest, entries: metadata, digests: digests)
        } catch {
            return session.fail(PeerError(.receiverFailed, error.messageForPeer))
        }
        self.staging = nil
        self.writer = nil
        return importAndAnswer(entries, digests: digests)
    }

    /// Starts the imports of the committed `entries` (but those in `delivered`), waits for them
    /// as long as the sender may wait, and answers with the receipt.
    private mutating func importAndAnswer(
        _ entries: [InboxEntry], digests: [UInt8], delivered: [Int: ImportBatch.Delivered] = [:]
    ) -> [ReceiverSession.Action] {
        guard let offer, let connection else {
            return session.fail(PeerError(.internalError, "the receiver lost its offer"))
        }
        let manifest = offer.manifest
        let fingerprint = connection.peerFingerprint
        let inbox = Inbox(directory: configuration.inbox)
        var importer = DocumentImporter(
            inbox: inbox, registry: configuration.registry.current(), receiveFolder: configuration.destination,
            environment: configuration.importEnvironment)
        importer.openedReceiveFolder = configuration.receiveFolder
        let imports = ImportBatch(
            importer: importer, entries: entries, cancellation: control.imports, delivered: delivered)
        imports.start()
        self.imports = imports
        _ = imports.wait(timeout: configuration.receiptWait)
        let home = configuration.importEnvironment["HOME"]
        let items = zip(manifest.items, entries).map { item, entry in
            ReceivedTransfer.Item(
                name: item.name, isBundle: item.isBundle, path: inbox.documentPath(of: entry), files: item.fileCount,
                bytes: item.byteCount,
                result: ImportResult(
                    entry: entry, type: "", application: nil, receiveFolderReason: nil,
                    outcome: .kept(failure: "not imported yet", timedOut: false), warnings: []))
        }
        let files = VerifiedFiles(manifest: manifest, digests: digests)
        let transfer = ReceivedTransfer(
            peerName: session.peer?.name ?? "", peerFingerprint: fingerprint,
            peerAddress: connection.endpoint, items: items, files: files, bytes: manifest.totalBytes,
            seconds: dataStarted.map { (ContinuousClock.now - $0).seconds } ?? 0,
            peerTrustedBy: offer.peerTrustedBy,
            pinnedName: offer.pinnedName ?? (verifiedNow ? offer.peerName : nil), verifiedNow: verifiedNow,
            claimsNameOf: verifiedNow ? nil : offer.claimsNameOf)
        var continued = transfer
        continued.resumedBytes = resumedBytes
        let receipt = Receipt(items: imports.receiptItems(home: home))
        committedTransfer = continued
        return session.committed(receipt)
    }

    /// Answers an offer committed before by an earlier connection (whose receipt was lost): the
    /// entries still in the inbox are imported (an import interrupted there is settled without a
    /// second copy: ``DocumentImporter``), those handed over already are reported as they went.
    private mutating func deliverAgain(_ record: CompletedOffer) -> [ReceiverSession.Action] {
        guard let offer, let connection else {
            return session.fail(PeerError(.internalError, "the receiver lost its offer"))
        }
        let inbox = Inbox(directory: configuration.inbox)
        var entries: [InboxEntry] = []
        var delivered: [Int: ImportBatch.Delivered] = [:]
        for (index, item) in offer.manifest.items.enumerated() {
            let id = index < record.entryIDs.count ? record.entryIDs[index] : ""
            let delivery = record.deliveries.flatMap { index < $0.count ? $0[index] : nil }
            if !id.isEmpty, let entry = try? inbox.entry(id), entry.id == id {
                entries.append(entry)
                // An import that failed waits for its user ('share inbox import'), as it did.
                if entry.state == .failed {
                    let failure = entry.failure ?? "its import failed"
                    delivered[index] = (
                        ImportResult(
                            entry: entry, type: entry.resolvedType ?? "", application: nil, receiveFolderReason: nil,
                            outcome: .kept(failure: failure, timedOut: false), warnings: []),
                        delivery.map { ReceiptItem(ReceiptOutcome(wireValue: $0.outcome), $0.text) }
                            ?? ReceiptItem(.keptInInbox, "its import failed; it waits in the receiver's inbox")
                    )
                }
                continue
            }
            var entry = InboxEntry(
                name: item.name, isBundle: item.isBundle, files: item.fileCount, bytes: item.byteCount,
                senderName: session.peer?.name ?? "", senderFingerprint: connection.peerFingerprint.hex,
                receivedAt: record.completedAt, declaredType: nil)
            entry.id = id
            entries.append(entry)
            let receipt = delivery.map { ReceiptItem(ReceiptOutcome(wireValue: $0.outcome), $0.text) }
                ?? ReceiptItem(.placed, "delivered when this offer was first received")
            let outcome: ImportResult.Outcome =
                receipt.outcome == .placed
                ? .receiveFolder(path: delivery?.path ?? receipt.text) : .imported(path: delivery?.path)
            delivered[index] = (
                ImportResult(
                    entry: entry, type: "", application: nil, receiveFolderReason: nil, outcome: outcome, warnings: []),
                receipt
            )
        }
        let digests = record.fileDigests.flatMap { Hex.decode($0) ?? [UInt8](repeating: 0, count: VerifiedFiles.digestSize) }
        return importAndAnswer(entries, digests: digests, delivered: delivered)
    }

    /// Whether the sender read the RECEIPT: it closes with close_notify right after it, while a sender
    /// that ends any other way sends ERROR first and a killed one sends nothing (docs/PROTOCOL.md §7).
    private func senderClosedAfterReceipt() -> Bool {
        guard resumable != nil, let connection else { return false }
        do {
            try connection.flush()
        } catch {
            return false
        }
        if case .end = connection.next(orWake: [control.wake], timeout: .seconds(2)) { return true }
        return false
    }

    /// Adds what became of each item to the offer's completion record, once every import ended,
    /// so a later continuation of the offer can say it again.
    private func recordDeliveries(_ imports: ImportBatch) {
        guard let resumable, var record = configuration.partials.completed(resumable), record.deliveries == nil else {
            return
        }
        let inbox = Inbox(directory: configuration.inbox)
        let home = configuration.importEnvironment["HOME"]
        let results = imports.waitForAll()
        record.deliveries = zip(imports.receiptItems(home: home), results).map { receipt, result in
            CompletedOffer.Delivery(
                outcome: receipt.outcome.rawValue, text: receipt.text, path: result.path(inbox: inbox))
        }
        try? configuration.partials.save(record, id: resumable.id)
    }

    /// What the sender is told when its files differ from those committed for the same offer
    /// (same names, sizes and times, other content).
    static func changedSince(_ record: CompletedOffer, path: String) -> PeerError {
        PeerError(
            .receiverFailed,
            "the receiver already has this offer, received whole before, but '\(path)' differs from what it received "
                + "then; nothing was placed again (change the file's modification time to send it as a new offer)")
    }

    /// The team CA that vouches for the sender, if it is still trusted.
    private var peerTrustedBy: CAInfo? {
        guard let authority = connection?.peerTrustedBy else { return nil }
        if let check = configuration.isStillTrusted, !check(authority) { return nil }
        return authority
    }

    private func peerError(for failure: FileWriter.Failure) -> PeerError {
        switch failure {
        case .hashMismatch(let path):
            PeerError(.hashMismatch, "'\(path)' arrived damaged: its SHA-256 does not match the sender's; nothing was kept")
        case .storage(let error):
            PeerError(.receiverFailed, error.messageForPeer)
        }
    }

    private mutating func reportProgress(force: Bool) {
        guard let offer, let dataStarted else { return }
        let now = ContinuousClock.now
        if !force, let lastProgress, now - lastProgress < .milliseconds(100) { return }
        lastProgress = now
        events.progress(
            offer,
            TransferProgress(
                bytesDone: bytesReceived, bytesTotal: offer.manifest.totalBytes, filesDone: filesReceived,
                filesTotal: offer.manifest.fileCount, elapsed: now - dataStarted))
    }

    /// Sends close_notify, stops sending, and drains briefly so the last frame is not lost to a reset.
    private func closeGracefully() {
        guard let connection else { return }
        try? connection.flush()
        connection.closeGracefully(drainFor: .seconds(2))
    }
}

extension Manifest {
    /// The path of the file `index` (among the offer's files).
    fileprivate func filePath(_ index: Int) -> String { entries[fileEntryIndices[index]].path }

    /// The size of the file `index` (among the offer's files).
    fileprivate func fileSize(_ index: Int) -> UInt64 { entries[fileEntryIndices[index]].size }
}
