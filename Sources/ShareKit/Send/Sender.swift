import Foundation
public import ShareDocuments
public import ShareTLS
public import ShareTransport
public import ShareWire

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
        ProcessSignals.ignoreBrokenPipes()
        let started = ContinuousClock.now
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
        defer { connection.close() }
        if let expected = options.expectedFingerprintPrefix, !connection.peerFingerprint.matches(prefix: expected) {
            throw .identityMismatch(
                endpoint: connection.endpoint, expectedPrefix: expected, actual: connection.peerFingerprint)
        }
        var run = SendRun(
            prepared: prepared, connection: connection, options: options, progress: progress, started: started)
        return try run.execute()
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

/// One send in progress: drives the ``SenderSession`` over the connection.
private struct SendRun {
    let prepared: PreparedSend
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

    init(
        prepared: PreparedSend, connection: SecureConnection, options: SendOptions,
        progress: (@Sendable (TransferProgress) -> Void)?, started: ContinuousClock.Instant
    ) {
        self.prepared = prepared
        self.connection = connection
        self.options = options
        self.progress = progress
        self.started = started
    }

    mutating func execute() throws(SendError) -> SendReport {
        connection.setTimeouts(receive: options.decisionTimeout, send: options.idleTimeout)
        perform(session.start(localName: options.deviceName, manifest: prepared.manifest))
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
            perform(session.receive(frame))
        }
        switch outcome {
        case .success(let receipt):
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
                endpoint: connection.endpoint, items: items, files: files, bytes: manifest.totalBytes,
                seconds: (ContinuousClock.now - started).seconds, peerTrustedBy: connection.peerTrustedBy)
        case .failure(let error):
            throw error
        case nil:
            preconditionFailure("the send loop ends only with an outcome")
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
        connection.setTimeouts(receive: options.idleTimeout, send: options.idleTimeout)
        streamStarted = .now
        let reader = FileReader(prepared)
        reader.start()
        defer { reader.cancel() }
        do throws(TransportError) {
            while true {
                let chunk: FileReader.Chunk
                if let ready = reader.nextIfReady() {
                    chunk = ready
                } else {
                    // The disk is behind: send what is buffered rather than sit on it.
                    try connection.flush()
                    if !pollReceiver() { return }
                    guard let next = reader.next() else { break }
                    chunk = next
                }
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
                    return
                }
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
        guard let progress, let streamStarted else { return }
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
