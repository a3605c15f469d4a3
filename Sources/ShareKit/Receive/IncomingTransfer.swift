internal import CShareLinux
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
    let cancellation: ImportCancellation

    private var connection: SecureConnection?
    private var session: ReceiverSession
    private var offer: IncomingOffer?
    private var staging: StagingArea?
    private var writer: FileWriter?
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

    init(
        socket: TCPSocket, context: TLSContext, configuration: ReceiverConfiguration, events: ReceiverEvents,
        limiter: PromptLimiter, localFingerprint: Fingerprint, cancellation: ImportCancellation
    ) {
        self.localFingerprint = localFingerprint
        self.cancellation = cancellation
        self.socket = socket
        self.context = context
        self.configuration = configuration
        self.events = events
        self.gate = ReceiveGate(configuration: configuration, limiter: limiter)
        self.session = ReceiverSession(localName: configuration.deviceName)
    }

    mutating func run() {
        let socket = self.socket
        let watchdog = Watchdog(after: configuration.offerDeadline) { socket.shutdown() }
        self.watchdog = watchdog
        defer { watchdog.cancel() }
        let connection: SecureConnection
        do {
            connection = try SecureConnection.accept(socket, context: context, handshakeTimeout: configuration.handshakeTimeout)
        } catch {
            let reason = watchdog.fired ? slowReason : error.description
            events.finished(.refused(peerAddress: socket.remoteDescription, reason: reason))
            return
        }
        self.connection = connection
        defer {
            writer?.cancel()
            staging?.discard()
            closeGracefully()
        }
        connection.setTimeouts(receive: configuration.handshakeTimeout, send: configuration.idleTimeout)
        perform(session.start())
        while !finished {
            let frame: Frame?
            do {
                frame = try connection.receive()
            } catch .wire(let error) {
                perform(session.fail(error))
                continue
            } catch {
                perform(session.connectionClosed())
                continue
            }
            guard let frame else {
                perform(session.connectionClosed())
                continue
            }
            perform(session.receive(frame))
            // About to wait for the network: hand the disk thread what this read brought.
            if !connection.hasBufferedFrame { writer?.flush() }
            if !finished, let failure = writer?.failure {
                perform(session.fail(peerError(for: failure)))
            }
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
            case .decide(let peer, let manifest):
                watchdog?.cancel()
                let fingerprint = connection.peerFingerprint
                let authority = peerTrustedBy
                let (verdict, trust) = gate.evaluate(
                    name: peer.name, fingerprint: fingerprint, address: connection.endpoint,
                    caTrustedBy: authority?.displayName)
                let offer = IncomingOffer(
                    peerName: peer.name, peerFingerprint: fingerprint, peerAddress: connection.endpoint, manifest: manifest,
                    verificationCode: VerificationCode.between(fingerprint, localFingerprint),
                    isVerified: trust?.peer(fingerprint) != nil, peerTrustedBy: authority,
                    peerCATrustProblem: connection.peerCATrustProblem)
                self.offer = offer
                perform(decide(offer, verdict: verdict))
            case .verify(let peer):
                watchdog?.cancel()
                perform(pair(peer))
            case .verified:
                break
            case .openFile(let index):
                writer?.open(fileIndex: index)
            case .write(_, let bytes):
                writer?.write(bytes)
                bytesReceived += UInt64(bytes.count)
                reportProgress(force: false)
            case .closeFile(let index, let digest):
                writer?.close(fileIndex: index, expected: digest)
                filesReceived += 1
            case .commit:
                perform(commit())
            case .declined(let decision):
                if let offer { events.finished(.declined(offer, decision)) }
            case .completed:
                // After the RECEIPT went out: only now may the user interface act on it (stop a
                // `--once` receiver, say) without cutting the sender off. Imports the receipt did
                // not wait for end first.
                if var transfer = committedTransfer {
                    if let imports {
                        let inbox = Inbox(directory: configuration.inbox)
                        for (index, result) in imports.waitForAll().enumerated() where index < transfer.items.count {
                            transfer.items[index].result = result
                            transfer.items[index].path = result.path(inbox: inbox)
                        }
                    }
                    events.finished(.received(transfer))
                }
            case .failed(let failure):
                writer?.cancel()
                staging?.discard()
                guard offer != nil else {
                    // Nothing was offered: a connection that never became a transfer.
                    let reason = watchdog?.fired == true ? slowReason : failure.description
                    events.finished(.refused(peerAddress: connection.endpoint, reason: reason))
                    continue
                }
                events.finished(
                    .failed(
                        peerName: session.peer?.name, peerFingerprint: connection.peerFingerprint,
                        peerAddress: connection.endpoint, failure))
            case .close:
                finished = true
            }
        }
    }

    /// Refuses a sender whose name is verified with another key, on both sides.
    private mutating func refuseChangedIdentity(
        name: String, fingerprint: Fingerprint, known: TrustStore.Peer
    ) -> [ReceiverSession.Action] {
        let address = connection?.endpoint ?? socket.remoteDescription
        events.finished(
            .identityChanged(peerName: name, peerFingerprint: fingerprint, peerAddress: address, knownFingerprint: known.fingerprint))
        let message =
            "the receiver knows \"\(DisplayText.escape(name))\" with another key and refused this connection; "
            + "if that machine was reinstalled, its user must remove the old key on the receiver "
            + "('share trust remove \(known.fingerprint.prefix(16))') and verify again"
        var actions = session.fail(PeerError(.identityChanged, message))
        // Reported above, with what the user needs; the generic failure report is dropped.
        actions.removeAll { if case .failed = $0 { true } else { false } }
        return actions
    }

    /// A pairing request: only a user who compares the codes can confirm it.
    private mutating func pair(_ peer: Hello) -> [ReceiverSession.Action] {
        guard let connection else { return [] }
        let fingerprint = connection.peerFingerprint
        let request = PairingRequest(
            peerName: peer.name, peerFingerprint: fingerprint, peerAddress: connection.endpoint,
            verificationCode: VerificationCode.between(fingerprint, localFingerprint))
        let (verdict, _) = gate.evaluate(
            name: peer.name, fingerprint: fingerprint, address: connection.endpoint, caTrustedBy: peerTrustedBy?.displayName)
        let decision: Decision
        switch verdict {
        case .identityChanged(let known):
            return refuseChangedIdentity(name: peer.name, fingerprint: fingerprint, known: known)
        case .refuse(let refusal) where refusal.code != .refusedByPolicy || configuration.effectivePolicy() != .trusted:
            decision = refusal
        case .ask, .accept, .refuse:
            if configuration.effectivePolicy() == .ask {
                decision = events.pair(request)
            } else {
                decision = Decision(
                    .refusedByPolicy,
                    message: "the receiver verifies peers only while it asks its user ('share receive --accept ask')")
            }
        }
        if decision.isAccepted, let directory = configuration.configDirectory {
            do {
                try TrustStore.update(in: directory) { $0.pin(fingerprint, name: peer.name, verification: .code) }
            } catch {
                return session.decided(Decision(.refusedByPolicy, message: "the receiver could not record the verification"))
            }
        }
        events.finished(.paired(request, confirmed: decision.isAccepted))
        return session.decided(decision)
    }

    /// Applies the trust verdict, checks free space, and prepares the staging area when accepted.
    private mutating func decide(_ offer: IncomingOffer, verdict: ReceiveGate.Verdict) -> [ReceiverSession.Action] {
        let manifest = offer.manifest
        var firstContact = false
        switch verdict {
        case .identityChanged(let known):
            return refuseChangedIdentity(name: offer.peerName, fingerprint: offer.peerFingerprint, known: known)
        case .refuse(let decision):
            return session.decided(decision)
        case .accept:
            break
        case .ask(let isFirstContact):
            firstContact = isFirstContact
        }
        let needed = manifest.totalBytes &+ configuration.freeSpaceMargin
        // Data is staged in the inbox; when the receive folder is on another filesystem, documents
        // placed there are copied once more.
        let available = min(
            Self.availableBytes(configuration.inbox),
            Self.sameFilesystem(configuration.inbox, configuration.destination)
                ? .max : Self.availableBytes(configuration.destination))
        if needed > available {
            return session.decided(
                Decision(
                    .insufficientSpace,
                    message: "the offer needs \(ByteCount.format(manifest.totalBytes)) but only "
                        + "\(ByteCount.format(available)) is free"))
        }
        let decision: Decision
        if case .ask = verdict {
            decision = events.decide(offer)
        } else {
            decision = .accept
        }
        guard decision.isAccepted else { return session.decided(decision) }
        if firstContact, let directory = configuration.configDirectory {
            // The user compared the code and accepted: the sender is now verified.
            try? TrustStore.update(in: directory) {
                $0.pin(offer.peerFingerprint, name: offer.peerName, verification: .code)
            }
        }
        do {
            let staging = try StagingArea(root: configuration.inbox)
            try staging.prepare(manifest)
            self.staging = staging
            let writer = FileWriter(staging: staging, manifest: manifest)
            writer.start()
            self.writer = writer
        } catch {
            staging?.discard()
            staging = nil
            return session.fail(PeerError(.receiverFailed, error.messageForPeer))
        }
        connection?.setTimeouts(receive: configuration.idleTimeout, send: configuration.idleTimeout)
        dataStarted = .now
        return session.decided(decision)
    }

    /// Waits for the disk thread, then commits every item.
    private mutating func commit() -> [ReceiverSession.Action] {
        guard let writer, let staging, let offer, let connection else {
            return session.fail(PeerError(.internalError, "the receiver lost its staging area"))
        }
        let digests: [[UInt8]]
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
                declaredType: item.declaredType.isEmpty ? nil : item.declaredType)
        }
        let entries: [InboxEntry]
        do {
            entries = try staging.commit(manifest, entries: metadata)
        } catch {
            return session.fail(PeerError(.receiverFailed, error.messageForPeer))
        }
        self.staging = nil
        self.writer = nil
        let inbox = Inbox(directory: configuration.inbox)
        let importer = DocumentImporter(
            inbox: inbox, registry: configuration.registry.current(), receiveFolder: configuration.destination,
            environment: configuration.importEnvironment)
        let imports = ImportBatch(importer: importer, entries: entries, cancellation: cancellation)
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
        let files = manifest.fileEntryIndices.enumerated().map { index, entryIndex in
            ReceivedTransfer.VerifiedFile(
                path: manifest.entries[entryIndex].path, bytes: manifest.entries[entryIndex].size,
                sha256: Hex.encode(digests[index]))
        }
        let transfer = ReceivedTransfer(
            peerName: session.peer?.name ?? "", peerFingerprint: fingerprint,
            peerAddress: connection.endpoint, items: items, files: files, bytes: manifest.totalBytes,
            seconds: dataStarted.map { (ContinuousClock.now - $0).seconds } ?? 0,
            peerTrustedBy: offer.peerTrustedBy)
        let receipt = Receipt(locations: imports.receiptLocations(home: home))
        committedTransfer = transfer
        return session.committed(receipt)
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

    private static func sameFilesystem(_ a: String, _ b: String) -> Bool {
        var first = stat()
        var second = stat()
        guard stat(a, &first) == 0, stat(b, &second) == 0 else { return true }
        return first.st_dev == second.st_dev
    }

    private static func availableBytes(_ path: String) -> UInt64 {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return .max }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize)
    }
}
