import Foundation
import ShareDocuments
public import ShareTLS
public import ShareTransport
import ShareWire

/// Sends prepared documents to one receiver over TLS (docs/PROTOCOL.md §5).
///
/// > Warning: ``send(_:to:identity:options:progress:)`` blocks; call it from a dedicated thread
/// > (``sendAsync(_:to:identity:options:progress:)`` does).
public enum Sender {
    /// Sends `prepared` to `endpoint` and returns what the receiver confirmed.
    /// - Parameters:
    ///   - progress: called on the sending thread, at most ten times a second and once at the end.
    /// - Throws: ``SendError``.
    public static func send(
        _ prepared: PreparedSend, to endpoint: Endpoint, identity: Identity, options: SendOptions,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) throws(SendError) -> SendReport {
        try send(prepared, toFirstOf: [endpoint], identity: identity, options: options, progress: progress)
    }

    /// Sends `prepared` to the first of `endpoints` (one peer's addresses, best first) that answers.
    public static func send(
        _ prepared: PreparedSend, toFirstOf endpoints: [Endpoint], identity: Identity, options: SendOptions,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) throws(SendError) -> SendReport {
        let started = ContinuousClock.now
        let (connection, options) = try open(endpoints, identity: identity, options: options)
        defer { connection.close() }
        var run = SendRun(
            prepared: prepared, connection: connection, options: options, progress: progress, started: started)
        let (receipt, verification) = try run.execute()
        return run.report(receipt, verification: verification)
    }

    /// Asks the receiver at the first of `endpoints` to verify identities (PAIR): both users
    /// compare the verification code; when both confirm, each side remembers the other.
    /// - Parameter options: `confirmFirstContact` asks this side's user (required).
    /// - Returns: the peer's name and fingerprint.
    public static func pair(
        toFirstOf endpoints: [Endpoint], identity: Identity, options: SendOptions
    ) throws(SendError) -> (name: String, fingerprint: Fingerprint, endpoint: String) {
        let (connection, options) = try open(endpoints, identity: identity, options: options)
        defer { connection.close() }
        var run = SendRun(prepared: nil, connection: connection, options: options, progress: nil, started: .now)
        _ = try run.execute()
        return (run.peerName, connection.peerFingerprint, connection.endpoint)
    }

    /// Connects over TLS to the first of `endpoints` that answers and checks the advertised
    /// fingerprint before anything is sent; returns the connection and the options with this side's
    /// fingerprint filled in.
    private static func open(
        _ endpoints: [Endpoint], identity: Identity, options: SendOptions
    ) throws(SendError) -> (SecureConnection, SendOptions) {
        ProcessSignals.ignoreBrokenPipes()
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
        if let expected = options.expectedFingerprintPrefix, !connection.peerFingerprint.matches(prefix: expected) {
            connection.close()
            throw .identityMismatch(
                endpoint: connection.endpoint, expectedPrefix: expected, actual: connection.peerFingerprint)
        }
        var options = options
        options.localFingerprint = identity.fingerprint
        return (connection, options)
    }

    /// ``pair(toFirstOf:identity:options:)`` on a dedicated thread.
    public static func pairAsync(
        toFirstOf endpoints: [Endpoint], identity: Identity, options: SendOptions
    ) async throws(SendError) -> (name: String, fingerprint: Fingerprint, endpoint: String) {
        try await BlockingWork.run("share.pair") { () throws(SendError) -> (name: String, fingerprint: Fingerprint, endpoint: String) in
            try pair(toFirstOf: endpoints, identity: identity, options: options)
        }
    }

    /// ``send(_:toFirstOf:identity:options:progress:)`` on a dedicated thread.
    public static func sendAsync(
        _ prepared: PreparedSend, toFirstOf endpoints: [Endpoint], identity: Identity, options: SendOptions,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(SendError) -> SendReport {
        try await BlockingWork.run("share.send") { () throws(SendError) -> SendReport in
            try send(prepared, toFirstOf: endpoints, identity: identity, options: options, progress: progress)
        }
    }
}

/// One send (or pairing, when `prepared` is nil) in progress: drives the ``SenderSession`` over
/// the connection.
private struct SendRun {
    let prepared: PreparedSend?
    let connection: SecureConnection
    let options: SendOptions
    let progress: (@Sendable (TransferProgress) -> Void)?
    let started: ContinuousClock.Instant
    var session = SenderSession()
    var outcome: Result<Receipt, SendError>?
    var streamStarted: ContinuousClock.Instant?
    var lastProgress: ContinuousClock.Instant?
    var bytesSent: UInt64 = 0
    var filesSent = 0
    var digests: [[UInt8]] = []
    var verification = PeerVerification.unverified

    init(
        prepared: PreparedSend?, connection: SecureConnection, options: SendOptions,
        progress: (@Sendable (TransferProgress) -> Void)?, started: ContinuousClock.Instant
    ) {
        self.prepared = prepared
        self.connection = connection
        self.options = options
        self.progress = progress
        self.started = started
    }

    /// The receiver's name from its HELLO.
    var peerName: String { session.peer?.name ?? "" }

    /// Runs the conversation; returns the receipt (empty for a pairing) and how the peer is known.
    mutating func execute() throws(SendError) -> (Receipt, PeerVerification) {
        connection.setTimeouts(receive: options.decisionTimeout, send: options.idleTimeout)
        if let prepared {
            perform(session.start(localName: options.deviceName, manifest: prepared.manifest))
        } else {
            perform(session.startPairing(localName: options.deviceName))
        }
        while outcome == nil {
            let frame: Frame?
            do {
                frame = try connection.receive()
            } catch {
                handle(error)
                continue
            }
            guard let frame else {
                perform(session.connectionClosed())
                continue
            }
            if case .hello(let hello) = frame, session.peer == nil {
                perform(session.receive(frame))
                vet(hello)
                continue
            }
            perform(session.receive(frame))
        }
        switch outcome {
        case .success(let receipt): return (receipt, verification)
        case .failure(let error): throw error
        case nil: preconditionFailure("the send loop ends only with an outcome")
        }
    }

    /// Checks the receiver's identity as soon as its HELLO arrives, before any file is sent: a
    /// changed key is refused; on first contact the user compares the verification code.
    private mutating func vet(_ hello: Hello) {
        let fingerprint = connection.peerFingerprint
        var trust = TrustStore()
        if let directory = options.configDirectory {
            do {
                trust = try TrustStore.load(from: directory)
            } catch {
                outcome = .failure(.trustStore(error.description))
                perform(session.fail(PeerError(.cancelled, "the sender cannot read its trust store")))
                return
            }
        }
        if let known = trust.conflict(name: hello.name, fingerprint: fingerprint) {
            outcome = .failure(.identityChanged(name: hello.name, knownFingerprint: known.fingerprint, presented: fingerprint))
            perform(
                session.fail(
                    PeerError(
                        .identityChanged,
                        "the sender knows \"\(DisplayText.escape(hello.name))\" with another key and sent nothing")))
            return
        }
        if trust.peer(fingerprint) != nil && prepared != nil {
            verification = .verified
            return
        }
        if connection.peerTrustedBy != nil && prepared != nil {
            // A team CA the user added vouches for this key: no code to compare.
            verification = .teamCA
            return
        }
        guard let confirm = options.confirmFirstContact else {
            if prepared == nil {
                outcome = .failure(.notConfirmed(name: hello.name))
                perform(session.fail(PeerError(.cancelled, "the sender has no terminal to compare the verification code on")))
            }
            verification = .unverified
            return
        }
        let contact = FirstContact(
            peerName: hello.name, peerFingerprint: fingerprint,
            verificationCode: VerificationCode.between(fingerprint, localFingerprint))
        guard confirm(contact) else {
            outcome = .failure(.notConfirmed(name: hello.name))
            perform(session.fail(PeerError(.cancelled, "the sender's user did not confirm the verification code")))
            return
        }
        verification = .confirmedNow
        // A send remembers the receiver now; a pairing only once the receiver's user confirmed too.
        if prepared != nil { remember(name: hello.name) }
    }

    private func remember(name: String) {
        guard let directory = options.configDirectory else { return }
        let fingerprint = connection.peerFingerprint
        try? TrustStore.update(in: directory) { $0.pin(fingerprint, name: name, verification: .code) }
    }

    /// This side's fingerprint, from the TLS context's identity.
    private var localFingerprint: Fingerprint {
        guard let own = options.localFingerprint else { preconditionFailure("Sender sets localFingerprint") }
        return own
    }

    /// The report of a completed send.
    func report(_ receipt: Receipt, verification: PeerVerification) -> SendReport {
        guard let prepared else { preconditionFailure("a pairing has no report") }
        do {
            let manifest = prepared.manifest
            let items = manifest.items.enumerated().map { index, item in
                SendReport.Item(
                    source: prepared.itemSources[index], name: item.name, isBundle: item.isBundle,
                    location: receipt.locations[index])
            }
            let files = manifest.fileEntryIndices.enumerated().map { index, entryIndex in
                SendReport.VerifiedFile(
                    path: manifest.entries[entryIndex].path, bytes: manifest.entries[entryIndex].size,
                    sha256: Hex.encode(digests[index]))
            }
            return SendReport(
                peerName: session.peer?.name ?? "", peerFingerprint: connection.peerFingerprint,
                peerVerification: verification, endpoint: connection.endpoint, items: items, files: files,
                bytes: manifest.totalBytes, seconds: (ContinuousClock.now - started).seconds,
                peerTrustedBy: connection.peerTrustedBy)
        }
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
            case .stream:
                stream()
            case .declined(let decision):
                outcome = .failure(.declined(decision))
            case .verified:
                remember(name: peerName)
                outcome = .success(Receipt(locations: []))
            case .completed(let receipt):
                reportProgress(force: true)
                outcome = .success(receipt)
            case .failed(let failure):
                if outcome == nil { outcome = .failure(.failed(failure)) }
            case .close:
                break
            }
        }
    }

    private mutating func handle(_ error: ConnectionError) {
        switch error {
        case .wire(let wire):
            perform(session.fail(wire))
        case .transport(let transport):
            if case .closed = transport {
                perform(session.connectionClosed())
            } else if outcome == nil {
                outcome = .failure(.transport(transport))
            }
        }
    }

    /// Streams every file without waiting for the receiver, checking between writes whether it
    /// sent something (an ERROR) so a failed transfer stops at once.
    private mutating func stream() {
        guard let prepared else { return }
        connection.setTimeouts(receive: options.idleTimeout, send: options.idleTimeout)
        streamStarted = .now
        let reader = FileReader(prepared)
        reader.start()
        defer { reader.cancel() }
        do throws(TransportError) {
            while true {
                let chunk: FileReader.Chunk
                if let ready = reader.nextIfReady() ?? reader.next(within: .milliseconds(2)) {
                    // A short wait lets small files that follow each other share one TLS write.
                    chunk = ready
                } else {
                    if reader.isFinished { break }
                    // The disk is behind: send what is buffered rather than sit on it.
                    try connection.flush()
                    if !pollReceiver() { return }
                    guard let next = reader.next() else { break }
                    chunk = next
                }
                guard try frame(chunk) else { return }
                if connection.pendingOutput == 0 && !pollReceiver() { return }
                reportProgress(force: false)
            }
            try connection.flush()
        } catch {
            // The receiver may have explained why it stopped reading: look for its ERROR first.
            connection.setTimeouts(receive: .seconds(2), send: .seconds(2))
            if let frame = try? connection.receive() {
                perform(session.receive(frame))
            }
            if outcome == nil { outcome = .failure(.transport(error)) }
            return
        }
        reportProgress(force: true)
        perform(session.finishedStreaming())
    }

    /// Turns one step of the reader into frames; false when the reader failed (the transfer ends).
    private mutating func frame(_ chunk: FileReader.Chunk) throws(TransportError) -> Bool {
        switch chunk {
        case .data(let index, let bytes):
            try connection.enqueueData(fileIndex: UInt32(index), bytes: bytes)
            bytesSent += UInt64(bytes.count)
        case .end(let index, var digest):
            if options.corruptDigestOfFile == index { digest[0] ^= 0xFF }
            try connection.enqueue(.fileEnd(fileIndex: UInt32(index), sha256: digest))
            digests.append(digest)
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
                filesTotal: prepared.manifest.fileCount, elapsed: now - streamStarted))
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
