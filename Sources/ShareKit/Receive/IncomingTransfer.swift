import Foundation
import ShareDocuments
import ShareTLS
import ShareTransport
import ShareWire

/// One incoming connection: the TLS handshake, then the ``ReceiverSession`` driven over it, with
/// a ``FileWriter`` on its own thread and a ``StagingArea`` for the commit.
struct IncomingTransfer {
    let socket: TCPSocket
    let context: TLSContext
    let configuration: ReceiverConfiguration
    let events: ReceiverEvents

    private var connection: SecureConnection?
    private var session: ReceiverSession
    private var offer: IncomingOffer?
    private var staging: StagingArea?
    private var writer: FileWriter?
    private var finished = false
    /// The committed transfer, reported once the sender has its receipt.
    private var committedTransfer: ReceivedTransfer?
    private var dataStarted: ContinuousClock.Instant?
    private var lastProgress: ContinuousClock.Instant?
    private var bytesReceived: UInt64 = 0
    private var filesReceived = 0

    init(socket: TCPSocket, context: TLSContext, configuration: ReceiverConfiguration, events: ReceiverEvents) {
        self.socket = socket
        self.context = context
        self.configuration = configuration
        self.events = events
        self.session = ReceiverSession(localName: configuration.deviceName)
    }

    mutating func run() {
        let connection: SecureConnection
        do {
            connection = try SecureConnection.accept(socket, context: context, handshakeTimeout: configuration.handshakeTimeout)
        } catch {
            events.finished(.refused(peerAddress: socket.remoteDescription, reason: error.description))
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
                let offer = IncomingOffer(
                    peerName: peer.name, peerFingerprint: connection.peerFingerprint,
                    peerAddress: connection.endpoint, manifest: manifest, peerTrustedBy: peerTrustedBy,
                    peerCATrustProblem: connection.peerCATrustProblem)
                self.offer = offer
                perform(decide(offer))
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
                // `--once` receiver, say) without cutting the sender off.
                if let transfer = committedTransfer { events.finished(.received(transfer)) }
            case .failed(let failure):
                writer?.cancel()
                staging?.discard()
                guard offer != nil else {
                    // Nothing was offered: a connection that never became a transfer.
                    events.finished(.refused(peerAddress: connection.endpoint, reason: failure.description))
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

    /// Asks the policy, checks free space, and prepares the staging area when accepted.
    private mutating func decide(_ offer: IncomingOffer) -> [ReceiverSession.Action] {
        let manifest = offer.manifest
        let needed = manifest.totalBytes &+ configuration.freeSpaceMargin
        let available = Self.availableBytes(configuration.destination)
        if needed > available {
            return session.decided(
                Decision(
                    .insufficientSpace,
                    message: "the offer needs \(ByteCount.format(manifest.totalBytes)) but only "
                        + "\(ByteCount.format(available)) is free"))
        }
        let decision = events.decide(offer)
        guard decision.isAccepted else { return session.decided(decision) }
        do {
            let staging = try StagingArea(destination: configuration.destination)
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
        let names: [String]
        do {
            names = try staging.commit(offer.manifest)
        } catch {
            return session.fail(PeerError(.receiverFailed, error.messageForPeer))
        }
        self.staging = nil
        self.writer = nil
        let manifest = offer.manifest
        let destination = configuration.destination
        let items = zip(manifest.items, names).map { item, name in
            ReceivedTransfer.Item(
                name: item.name, isBundle: item.isBundle, path: destination + "/" + name, files: item.fileCount,
                bytes: item.byteCount)
        }
        let files = manifest.fileEntryIndices.enumerated().map { index, entryIndex in
            ReceivedTransfer.VerifiedFile(
                path: manifest.entries[entryIndex].path, bytes: manifest.entries[entryIndex].size,
                sha256: Hex.encode(digests[index]))
        }
        let transfer = ReceivedTransfer(
            peerName: session.peer?.name ?? "", peerFingerprint: connection.peerFingerprint,
            peerAddress: connection.endpoint, items: items, files: files, bytes: manifest.totalBytes,
            seconds: dataStarted.map { (ContinuousClock.now - $0).seconds } ?? 0,
            peerTrustedBy: offer.peerTrustedBy)
        let receipt = Receipt(locations: items.map { DisplayPath.abbreviate($0.path) })
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

    private static func availableBytes(_ path: String) -> UInt64 {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return .max }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize)
    }
}
