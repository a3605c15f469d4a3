import ShareDocuments
import ShareWire

/// The data stage of an incoming transfer: hands each file's frames, decompressed, to the
/// ``FileWriter`` on its own thread (which hashes, writes and verifies them), counts what arrived
/// and reports progress. For an offer committed before (its receipt was lost) there is no writer:
/// each file's offset and SHA-256 are only checked against what was committed then.
///
/// Used by the connection's own thread only.
final class DataIntake {
    let configuration: ReceiverConfiguration
    let events: ReceiverEvents

    /// The accepted offer (for progress and messages).
    private var offer: IncomingOffer?
    /// The record of this offer when it was committed before (``TransferCommit/completedBefore``).
    private var completedBefore: CompletedOffer?
    private(set) var writer: FileWriter?
    /// Decompresses zstd DATA, one chunk at a time, into at most its announced length.
    private let decompressor = ChunkDecompressor()
    /// When the offer was accepted.
    private(set) var dataStarted: ContinuousClock.Instant?
    private var lastProgress: ContinuousClock.Instant?
    private var bytesReceived: UInt64 = 0
    private var filesReceived = 0

    init(configuration: ReceiverConfiguration, events: ReceiverEvents) {
        self.configuration = configuration
        self.events = events
    }

    /// The offer was accepted: data may come from now on, into `staging` from the files it holds
    /// already (`held`), or, for an offer committed before, into nothing. The disk thread gives each
    /// payload's array back to `payloadBuffers` once written.
    func begin(
        _ offer: IncomingOffer, staging: StagingArea?, held: [HeldFile] = [], completedBefore: CompletedOffer? = nil,
        payloadBuffers: PayloadBuffers? = nil
    ) {
        self.offer = offer
        self.completedBefore = completedBefore
        if let staging {
            let writer = FileWriter(
                staging: staging, manifest: offer.manifest, held: held, budget: configuration.writerQueueBudget,
                payloadBuffers: payloadBuffers)
            writer.start()
            self.writer = writer
        }
        dataStarted = .now
    }

    /// The sender starts file `index` at `offset`; the error to end the transfer with, if any.
    func open(fileIndex index: Int, offset: UInt64) -> PeerError? {
        if let completedBefore, let offer, offset != offer.manifest.fileSize(index) {
            return Self.changedSince(completedBefore, path: offer.manifest.filePath(index))
        }
        writer?.open(fileIndex: index, offset: offset)
        bytesReceived += offset
        return nil
    }

    /// One DATA chunk of the current file; the error to end the transfer with, if any.
    func write(_ chunk: DataChunk) -> PeerError? {
        let bytes: [UInt8]
        do {
            bytes = try decompressor.fileBytes(of: chunk)
        } catch {
            return error
        }
        writer?.write(bytes)
        bytesReceived += UInt64(bytes.count)
        reportProgress(force: false)
        return nil
    }

    /// The end of file `index`, with the sender's SHA-256 of it; the error to end the transfer
    /// with, if any.
    func close(fileIndex index: Int, digest: [UInt8]) -> PeerError? {
        if let completedBefore, let offer,
            completedBefore.fileDigests.dropFirst(index).first != Hex.encode(digest)
        {
            return Self.changedSince(completedBefore, path: offer.manifest.filePath(index))
        }
        writer?.close(fileIndex: index, expected: digest)
        filesReceived += 1
        if index == 0 { TestPause.at("data") }
        return nil
    }

    /// Hands the disk thread what was read so far (the connection is about to wait for the network).
    func flush() {
        writer?.flush()
    }

    /// Why the disk thread failed, if it did: what the sender is told.
    var failure: PeerError? {
        writer?.failure.map(Self.peerError(for:))
    }

    /// Waits for the disk thread; each file's verified SHA-256, one after another.
    func finish() -> Result<[UInt8], PeerError>? {
        guard let writer else { return nil }
        switch writer.finish() {
        case .success(let verified): return .success(verified)
        case .failure(let failure): return .failure(Self.peerError(for: failure))
        }
    }

    /// Bytes the disk thread wrote in this connection.
    var bytesWritten: Int64 { writer?.bytesWritten ?? 0 }

    /// The transfer failed and is kept: the disk thread writes what it was given.
    func drain() { writer?.drain() }

    /// The transfer failed and is not kept: the disk thread stops at once.
    func stop() { writer?.stop() }

    /// The connection ends: the disk thread stops, if it still runs.
    func cancel() { writer?.cancel() }

    /// Lets go of the disk thread (and with it of the staging area it holds).
    func release() { writer = nil }

    func reportProgress(force: Bool) {
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

    private static func peerError(for failure: FileWriter.Failure) -> PeerError {
        switch failure {
        case .hashMismatch(let path):
            PeerError(.hashMismatch, "'\(path)' arrived damaged: its SHA-256 does not match the sender's; nothing was kept")
        case .storage(let error):
            PeerError(.receiverFailed, error.messageForPeer)
        }
    }

    /// What the sender is told when its files differ from those committed for the same offer
    /// (same names, sizes and times, other content).
    static func changedSince(_ record: CompletedOffer, path: String) -> PeerError {
        PeerError(
            .receiverFailed,
            "the receiver already has this offer, received whole before, but '\(path)' differs from what it received "
                + "then; nothing was placed again (change the file's modification time to send it as a new offer)")
    }
}

extension Manifest {
    /// The path of the file `index` (among the offer's files).
    fileprivate func filePath(_ index: Int) -> String { entries[fileEntryIndices[index]].path }

    /// The size of the file `index` (among the offer's files).
    fileprivate func fileSize(_ index: Int) -> UInt64 { entries[fileEntryIndices[index]].size }
}
