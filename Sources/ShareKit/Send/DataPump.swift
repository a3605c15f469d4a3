import ShareDocuments
import ShareTransport
import ShareWire

/// The data stage of a send: a ``FileReader`` on its own thread opens, reads and hashes the files
/// (continuing from what the receiver holds), and this type turns its steps into DATA and
/// FILE_END frames, batched into TLS writes, with the zstd ``ChunkCompressor`` and its
/// ``LinkPace`` when both sides use ZSTD; it counts what was sent and reports progress.
///
/// Used by the sending thread only; ``SendRun`` runs the loop and handles the receiver meanwhile.
final class DataPump {
    let prepared: PreparedSend
    let connection: SecureConnection
    let options: SendOptions
    let progress: (@Sendable (TransferProgress) -> Void)?
    /// When the data started.
    let started: ContinuousClock.Instant
    private let reader: FileReader
    /// While ZSTD is in use: the compressor of the reader thread, and how fast the network takes
    /// what this thread writes (docs/PROTOCOL.md §8).
    private(set) var compressor: ChunkCompressor?
    private var pace: LinkPace?
    private var lastProgress: ContinuousClock.Instant?
    private(set) var bytesSent: UInt64 = 0
    private var filesSent = 0
    /// Each sent file's SHA-256, one after another (``VerifiedFiles``).
    private(set) var digests: [UInt8] = []
    private var currentFile = -1
    /// Bytes the receiver already held of this offer and that did not have to be sent again.
    private(set) var resumedBytes: UInt64 = 0

    /// Starts the reader thread: `have` is what the receiver holds already; `zstd` whether both
    /// sides announced ZSTD.
    init(
        _ prepared: PreparedSend, have: [HaveRecord], zstd: Bool, connection: SecureConnection, options: SendOptions,
        progress: (@Sendable (TransferProgress) -> Void)?
    ) {
        self.prepared = prepared
        self.connection = connection
        self.options = options
        self.progress = progress
        started = .now
        if zstd {
            let socket = connection.socket
            let pace = LinkPace(unacknowledged: { socket.unacknowledgedBytes })
            self.pace = pace
            let thisMachine = !options.compression.thisMachineAsDistant && connection.socket.peerIsThisMachine
            compressor = ChunkCompressor(
                settings: options.compression, types: options.compressedTypes, pace: pace,
                receiverOnThisMachine: thisMachine)
        }
        reader = FileReader(prepared, have: have, compressor: compressor, shared: options.sharedSource)
        reader.start()
    }

    /// What the reader has next.
    enum Next {
        /// A step to send.
        case chunk(FileReader.Chunk)
        /// The reader is behind: what was buffered went out; ``waitForReader()`` gets the next step
        /// once the receiver was heard.
        case behind
        /// Every file was read.
        case finished
    }

    /// The reader's next step, or, when none comes soon, what was buffered is sent.
    func next() throws(TransportError) -> Next {
        if let ready = reader.nextIfReady() ?? reader.next(within: .milliseconds(2)) {
            // A short wait lets small files that follow each other share one TLS write.
            return .chunk(ready)
        }
        if reader.isFinished { return .finished }
        // The disk is behind: send what is buffered rather than sit on it.
        try paced(0) { () throws(TransportError) in try connection.flush() }
        return .behind
    }

    /// Waits for the reader's next step; nil when it has none left.
    func waitForReader() -> FileReader.Chunk? {
        reader.next()
    }

    /// Stops the reader thread.
    func cancel() {
        reader.cancel()
    }

    /// Turns one step of the reader into frames; the reader's reason when it failed (the transfer
    /// ends).
    func frame(_ chunk: FileReader.Chunk) throws(TransportError) -> String? {
        switch chunk {
        case .data(let index, let offset, let encoding, let bytes):
            currentFile = index
            try paced(FrameType.headerSize + FrameType.dataHeaderSize + bytes.count) { () throws(TransportError) in
                try connection.enqueueData(fileIndex: UInt32(index), offset: offset, encoding: encoding, bytes: bytes)
            }
            if case .zstd(let rawLength) = encoding { bytesSent += UInt64(rawLength) } else { bytesSent += UInt64(bytes.count) }
        case .resumed(_, let offset):
            resumedBytes += offset
            bytesSent += offset
        case .end(let index, var digest):
            if options.corruptDigestOfFile == index { digest[0] ^= 0xFF }
            try connection.enqueue(.fileEnd(fileIndex: UInt32(index), sha256: digest))
            digests.append(contentsOf: digest)
            filesSent = index + 1
        case .failure(let reason):
            return reason
        case .batch(let steps):
            for step in steps {
                if let reason = try frame(step) { return reason }
            }
        }
        return nil
    }

    /// Runs `write`, which hands `bytes` to the connection (and may write to the socket), and tells
    /// the compressor's ``LinkPace`` how long it took.
    private func paced(_ bytes: Int, _ write: () throws(TransportError) -> Void) throws(TransportError) {
        guard let pace else { return try write() }
        let started = ContinuousClock.now
        try write()
        pace.wrote(bytes: bytes, in: .now - started, queued: connection.socket.unacknowledgedBytes)
    }

    func reportProgress(force: Bool) {
        guard let progress else { return }
        let now = ContinuousClock.now
        if !force, let lastProgress, now - lastProgress < .milliseconds(100) { return }
        lastProgress = now
        progress(
            TransferProgress(
                bytesDone: bytesSent, bytesTotal: prepared.manifest.totalBytes, filesDone: filesSent,
                filesTotal: prepared.manifest.fileCount, elapsed: now - started, resumedBytes: resumedBytes))
    }
}
