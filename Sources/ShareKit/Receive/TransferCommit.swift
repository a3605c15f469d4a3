import Foundation
import ShareDocuments
import ShareTLS
import ShareTransport
import ShareWire

/// The commit stage of an incoming transfer: prepares the ``StagingArea`` in the inbox (or finds
/// the offer committed before), commits it once every file is verified, hands each committed
/// document to its importer (``ImportBatch``) and answers with the receipt; keeps or discards the
/// staged part of a transfer that failed, and records what a later continuation must say again.
///
/// Used by the connection's own thread only.
final class TransferCommit {
    let configuration: ReceiverConfiguration
    let events: ReceiverEvents
    let control: ConnectionControl
    /// Ends another connection that holds the partial transfer this one continues (by its area name).
    let supersede: @Sendable (String) -> Void

    private var staging: StagingArea?
    /// The partial transfer this offer is (with RESUME): its key, sender and offer.
    private var resumable: PartialTransfer?
    /// The record of this offer when it was committed before (its receipt was lost): every file is
    /// already there, and nothing is placed again (docs/PROTOCOL.md §7, "Completed offers").
    private(set) var completedBefore: CompletedOffer?
    /// Bytes of the offer this receiver already held when the transfer was continued, less those of
    /// files the sender restarted from scratch.
    private(set) var resumedBytes: UInt64 = 0
    /// What was held of each file when the transfer was continued (by file index).
    private var heldOffsets: [Int: UInt64] = [:]
    /// The committed transfer, reported once the sender has its receipt and the imports ended.
    private var committedTransfer: ReceivedTransfer?
    /// The imports of the committed documents.
    private var imports: ImportBatch?

    /// Where the accepted offer's data goes.
    enum Prepared {
        /// Into the staging area, which holds `held` already.
        case staged(StagingArea, held: [HeldFile], have: [HaveRecord])
        /// Nowhere: the offer was committed before (`have` says every file is there).
        case completedBefore(CompletedOffer, have: [HaveRecord])
    }

    init(
        configuration: ReceiverConfiguration, events: ReceiverEvents, control: ConnectionControl,
        supersede: @escaping @Sendable (String) -> Void
    ) {
        self.configuration = configuration
        self.events = events
        self.control = control
        self.supersede = supersede
    }

    /// Prepares the staging area for the accepted `manifest`, continuing `resumable` when kept.
    func prepare(_ manifest: Manifest, resumable: PartialTransfer?) throws(ReceiveError) -> Prepared {
        self.resumable = resumable
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
                let have = record.haveRecords(sizes: manifest.fileEntryIndices.map { manifest.entries[$0].size })
                return .completedBefore(record, have: have)
            }
            self.staging = staging
            try staging.prepare(manifest)
            staging.saveMetadata()
            let held = staging.heldFiles(manifest)
            let have = held.map { HaveRecord(fileIndex: UInt32($0.fileIndex), offset: $0.offset, sha256: $0.digest) }
            resumedBytes = held.reduce(0) { $0 + $1.offset }
            heldOffsets = Dictionary(held.map { ($0.fileIndex, $0.offset) }, uniquingKeysWith: { first, _ in first })
            return .staged(staging, held: held, have: have)
        } catch {
            staging?.discard()
            staging = nil
            throw error
        }
    }

    /// File `index` is being received from `offset`: from 0, what was held of it is discarded and no
    /// longer counts as resumed (nor as kept, should the transfer stop again).
    func opened(fileIndex index: Int, offset: UInt64) {
        guard offset == 0, let held = heldOffsets.removeValue(forKey: index) else { return }
        resumedBytes -= min(held, resumedBytes)
    }

    /// Waits for the disk thread, then commits every item, imports them and returns the receipt.
    func commit(
        _ offer: IncomingOffer?, over connection: SecureConnection?, peerName: String, verifiedNow: Bool,
        data: DataIntake
    ) -> Result<Receipt, PeerError> {
        if let completedBefore {
            return deliverAgain(completedBefore, offer: offer, over: connection, peerName: peerName, verifiedNow: verifiedNow, data: data)
        }
        guard data.writer != nil, let staging, let offer, let connection else {
            return .failure(PeerError(.internalError, "the receiver lost its staging area"))
        }
        let digests: [UInt8]
        switch data.finish() {
        case .success(let verified)?: digests = verified
        case .failure(let failure)?: return .failure(failure)
        case nil: return .failure(PeerError(.internalError, "the receiver lost its staging area"))
        }
        data.reportProgress(force: true)
        let manifest = offer.manifest
        let metadata = configuration.inboxEntries(
            for: manifest, senderName: peerName, senderFingerprint: connection.peerFingerprint.hex)
        let entries: [InboxEntry]
        do {
            entries = try staging.commit(manifest, entries: metadata, digests: digests)
        } catch {
            return .failure(PeerError(.receiverFailed, error.messageForPeer))
        }
        self.staging = nil
        data.release()
        return .success(
            importAndAnswer(
                entries, digests: digests, offer: offer, over: connection, peerName: peerName, verifiedNow: verifiedNow,
                dataStarted: data.dataStarted))
    }

    /// Starts the imports of the committed `entries` (but those in `delivered`), waits for them
    /// as long as the sender may wait, and answers with the receipt.
    private func importAndAnswer(
        _ entries: [InboxEntry], digests: [UInt8], delivered: [Int: ImportBatch.Delivered] = [:], offer: IncomingOffer,
        over connection: SecureConnection, peerName: String, verifiedNow: Bool, dataStarted: ContinuousClock.Instant?
    ) -> Receipt {
        let manifest = offer.manifest
        let fingerprint = connection.peerFingerprint
        let inbox = Inbox(directory: configuration.inbox)
        let importer = configuration.documentImporter(inbox: inbox)
        let imports = ImportBatch(
            importer: importer, entries: entries, cancellation: control.imports, delivered: delivered)
        imports.start()
        self.imports = imports
        _ = imports.wait(timeout: configuration.receiptWait)
        let home = configuration.importEnvironment["HOME"]
        let items = zip(manifest.items, entries).map { item, entry in
            ReceivedTransfer.Item(
                name: item.name, isBundle: item.isBundle, isNote: item.kind == .note, path: inbox.documentPath(of: entry),
                files: item.fileCount,
                bytes: item.byteCount,
                result: ImportResult(
                    entry: entry, type: "", application: nil, receiveFolderReason: nil,
                    outcome: .kept(failure: "not imported yet", timedOut: false), warnings: []))
        }
        let files = VerifiedFiles(manifest: manifest, digests: digests)
        let transfer = ReceivedTransfer(
            peerName: peerName, peerFingerprint: fingerprint,
            peerAddress: connection.endpoint, items: items, files: files, bytes: manifest.totalBytes,
            seconds: dataStarted.map { (ContinuousClock.now - $0).seconds } ?? 0,
            peerTrustedBy: offer.peerTrustedBy,
            pinnedName: offer.pinnedName ?? (verifiedNow ? offer.peerName : nil), verifiedNow: verifiedNow,
            claimsNameOf: verifiedNow ? nil : offer.claimsNameOf)
        var continued = transfer
        continued.resumedBytes = resumedBytes
        let receipt = Receipt(items: imports.receiptItems(home: home))
        committedTransfer = continued
        return receipt
    }

    /// Answers an offer committed before by an earlier connection (whose receipt was lost): the
    /// entries still in the inbox are imported (an import interrupted there is settled without a
    /// second copy: ``DocumentImporter``), those handed over already are reported as they went.
    private func deliverAgain(
        _ record: CompletedOffer, offer: IncomingOffer?, over connection: SecureConnection?, peerName: String,
        verifiedNow: Bool, data: DataIntake
    ) -> Result<Receipt, PeerError> {
        guard let offer, let connection else {
            return .failure(PeerError(.internalError, "the receiver lost its offer"))
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
                senderName: peerName, senderFingerprint: connection.peerFingerprint.hex,
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
        return .success(
            importAndAnswer(
                entries, digests: digests, delivered: delivered, offer: offer, over: connection, peerName: peerName,
                verifiedNow: verifiedNow, dataStarted: data.dataStarted))
    }

    /// The RECEIPT went out: waits for the imports it did not wait for and reports the transfer.
    /// Only now may the user interface act on it (stop a `--once` receiver, say) without cutting
    /// the sender off.
    func completed(over connection: SecureConnection) {
        let receiptArrived = senderClosedAfterReceipt(over: connection)
        guard var transfer = committedTransfer else { return }
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

    /// Whether the sender read the RECEIPT: it closes with close_notify right after it, while a sender
    /// that ends any other way sends ERROR first and a killed one sends nothing (docs/PROTOCOL.md §7).
    private func senderClosedAfterReceipt(over connection: SecureConnection) -> Bool {
        guard resumable != nil else { return false }
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

    /// The transfer failed: what was staged is kept to be continued (`keeping`) or discarded, and
    /// the area (which `data`'s disk thread holds too) is let go before the failure is reported,
    /// so its lock is free from then on and `share inbox remove` and expiry can take it at once.
    /// Returns the bytes kept.
    func settleFailure(keeping: Bool, data: DataIntake) -> UInt64 {
        var keptBytes: UInt64 = 0
        if keeping {
            data.drain()
            staging?.keep()
            if staging?.partial != nil { keptBytes = resumedBytes + UInt64(max(0, data.bytesWritten)) }
        } else {
            data.stop()
            staging?.discard()
        }
        let kept = staging?.partial != nil
        data.release()
        staging = nil
        if kept { configuration.partials.expire() }
        return keptBytes
    }

    /// The connection ends: a staging area still held is discarded.
    func discard() {
        staging?.discard()
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
}
