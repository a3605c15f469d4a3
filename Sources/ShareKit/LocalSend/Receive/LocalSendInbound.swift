import Foundation
import ShareDocuments
import ShareLocalSend
import ShareTLS
import ShareWire
import Synchronization

/// One accepted LocalSend session on its way to the inbox: its staging area and the disk thread
/// (``FileWriter``) that hashes and writes each upload, checked against the SHA-256 the sender gave;
/// when the last file arrived, the commit (whole or not at all, never over an existing name) and the
/// imports, as for share's own transfers.
///
/// Uploads are taken one at a time (``take(_:)`` holds the session while a body streams in); a
/// LocalSend sender that uploads in parallel has its other uploads wait.
final class LocalSendInbound: @unchecked Sendable {
    let offer: IncomingOffer
    let files: LocalSendOffer
    let sessionID: String
    private let configuration: ReceiverConfiguration
    private let events: ReceiverEvents
    // Used by one upload's thread at a time (``uploading``), or by whoever ended the session.
    private let staging: StagingArea
    private let writer: FileWriter
    private let uploading = NSLock()
    /// Held by the commit and by ``discard()``: whichever comes first ends the session (``ended``).
    private let ending = NSLock()
    private var ended = false
    private let progress = Mutex<(bytes: UInt64, files: Int, last: ContinuousClock.Instant?)>((0, 0, nil))
    private let started = ContinuousClock.now
    private let imports = ImportCancellation()

    /// Prepares the staging area for `offer` and starts the disk thread.
    init(offer: IncomingOffer, files: LocalSendOffer, sessionID: String, configuration: ReceiverConfiguration, events: ReceiverEvents)
        throws(ReceiveError)
    {
        self.offer = offer
        self.files = files
        self.sessionID = sessionID
        self.configuration = configuration
        self.events = events
        staging = try StagingArea(root: configuration.inbox, executableBits: .removed, umask: configuration.umask)
        do {
            try staging.prepare(offer.manifest)
        } catch {
            staging.discard()
            throw error
        }
        writer = FileWriter(staging: staging, manifest: offer.manifest, budget: configuration.writerQueueBudget)
        writer.start()
    }

    /// Why an upload was not taken.
    enum UploadFailure: Error {
        /// Its length is not the size offered (400).
        case wrongLength(String)
        /// The body did not arrive whole (the sender went away, or went silent).
        case cutShort(String)
        /// A file's content does not match the SHA-256 its sender gave (422).
        case damaged(String)
        /// This side could not store it (500).
        case storage(String)
    }

    /// Streams one upload of file `fileID` into the staging area. Over each `window` the sender must
    /// send at least ``ReceiverConfiguration/minimumRate`` bytes a second, as share's own senders must:
    /// a sender dripping bytes never stands still, yet must not hold the one session.
    func take(
        _ exchange: HTTPExchange, fileID: String, window: Duration, moved: @escaping () -> Void
    ) -> Result<Void, UploadFailure> {
        uploading.lock()
        defer { uploading.unlock() }
        guard let index = files.fileIndices[fileID] else { return .failure(.storage("no such file")) }
        let entry = offer.manifest.entries[offer.manifest.fileEntryIndices[index]]
        let name = DisplayText.escape(entry.path)
        guard exchange.bodyLength == entry.size else {
            return .failure(
                .wrongLength("'\(name)' was offered with \(entry.size) bytes, but its upload declares \(exchange.bodyLength)"))
        }
        if let failure = writer.failure { return .failure(Self.describe(failure)) }
        writer.open(fileIndex: index)
        var received: UInt64 = 0
        var pace = RateWindow(length: window, minimumRate: configuration.minimumRate)
        _ = pace.wait(within: nil, bytesReceived: 0)
        var tooSlow: PeerError?
        do {
            try exchange.streamBody { [writer] bytes in
                writer.write(Array(bytes))
                received += UInt64(bytes.count)
                moved()
                self.report(bytes: UInt64(bytes.count), files: 0)
                if case .tooSlow(let error) = pace.check(bytesReceived: received) {
                    tooSlow = error
                    return false
                }
                return writer.failure == nil
            }
        } catch {
            if let failure = writer.failure { return .failure(Self.describe(failure)) }
            if let tooSlow { return .failure(.cutShort("the upload of '\(name)' was ended: \(tooSlow.message)")) }
            return .failure(.cutShort("the upload of '\(name)' stopped after \(received) of \(entry.size) bytes: \(error)"))
        }
        writer.close(fileIndex: index, expected: files.digests[index])
        writer.flush()
        report(bytes: 0, files: 1)
        if let failure = writer.failure { return .failure(Self.describe(failure)) }
        return .success(())
    }

    /// Waits for the disk thread and commits every item to the inbox; the entries made.
    func commit() -> Result<(entries: [InboxEntry], digests: [UInt8]), UploadFailure> {
        ending.lock()
        defer { ending.unlock() }
        guard !ended else { return .failure(.storage("the session ended before its commit")) }
        ended = true
        let digests: [UInt8]
        switch writer.finish() {
        case .success(let verified): digests = verified
        case .failure(let failure): return .failure(Self.describe(failure))
        }
        report(bytes: 0, files: 0, force: true)
        let metadata = configuration.inboxEntries(
            for: offer.manifest, senderName: offer.peerName,
            senderFingerprint: "localsend:" + (offer.localSend?.claimedFingerprint ?? ""))
        do {
            return .success((try staging.commit(offer.manifest, entries: metadata, digests: digests), digests))
        } catch {
            return .failure(.storage(error.messageForPeer))
        }
    }

    /// Hands each committed entry to its importer, waits for them, and says what was received.
    func importAll(_ entries: [InboxEntry], digests: [UInt8]) -> ReceivedTransfer {
        let inbox = Inbox(directory: configuration.inbox)
        let batch = ImportBatch(importer: configuration.documentImporter(inbox: inbox), entries: entries, cancellation: imports)
        batch.start()
        let results = batch.waitForAll()
        let manifest = offer.manifest
        let items = zip(manifest.items, results).map { item, result in
            ReceivedTransfer.Item(
                name: item.name, isBundle: item.isBundle, path: result.path(inbox: inbox), files: item.fileCount,
                bytes: item.byteCount, result: result)
        }
        var transfer = ReceivedTransfer(
            peerName: offer.peerName, peerFingerprint: offer.peerFingerprint, peerAddress: offer.peerAddress, items: items,
            files: VerifiedFiles(manifest: manifest, digests: digests), bytes: manifest.totalBytes,
            seconds: (ContinuousClock.now - started).seconds)
        transfer.localSend = offer.localSend
        transfer.checkedAgainstSender = files.digests.allSatisfy { $0 != nil }
        return transfer
    }

    /// The session ended without a commit: the disk thread stops and nothing staged is kept.
    /// A commit in progress ends first; after a commit, only the imports still running are cancelled.
    func discard() {
        // Makes an upload in progress (its writes are dropped) and a commit waiting for the disk return.
        writer.stop()
        imports.cancel()
        ending.lock()
        defer { ending.unlock() }
        guard !ended else { return }
        ended = true
        staging.discard()
    }

    private func report(bytes: UInt64, files: Int, force: Bool = false) {
        let now = ContinuousClock.now
        let due: TransferProgress? = progress.withLock { progress in
            progress.bytes += bytes
            progress.files += files
            if !force, let last = progress.last, now - last < .milliseconds(100) { return nil }
            progress.last = now
            return TransferProgress(
                bytesDone: progress.bytes, bytesTotal: offer.manifest.totalBytes, filesDone: progress.files,
                filesTotal: offer.manifest.fileCount, elapsed: now - started)
        }
        if let due { events.progress(offer, due) }
    }

    private static func describe(_ failure: FileWriter.Failure) -> UploadFailure {
        switch failure {
        case .hashMismatch(let path):
            .damaged("'\(DisplayText.escape(path))' arrived damaged: its SHA-256 does not match the sender's; nothing was kept")
        case .storage(let error):
            .storage(error.messageForPeer)
        }
    }
}
