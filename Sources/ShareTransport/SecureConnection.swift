public import ShareDocuments
public import ShareTLS
public import ShareWire

#if canImport(Glibc)
import Glibc
#endif

/// A TLS 1.3 connection that carries share frames.
///
/// Outgoing frames are batched in a buffer and written with ``flush()`` (many small frames become
/// one TLS write); incoming bytes are read straight into the frame decoder's buffer.
///
/// > Warning: Blocking, and confined to one thread at a time. Only ``cancel()`` may be called from
/// > another thread.
public final class SecureConnection {
    /// The underlying socket.
    public let socket: TCPSocket
    private let tls: TLSConnection
    private var decoder: FrameDecoder
    private var output: [UInt8] = []
    private var reachedEnd = false
    /// The peer's address, for messages.
    public let endpoint: String
    /// The SHA-256 fingerprint of the peer's public key, verified by the TLS handshake.
    public let peerFingerprint: Fingerprint
    /// The team CA that vouches for the peer (``TLSConnection/peerTrustedBy``), if any.
    public let peerTrustedBy: CAInfo?
    /// Why a peer whose chain leads to a team CA is not CA-trusted (``TLSConnection/peerCATrustProblem``).
    public let peerCATrustProblem: String?

    /// Keeps the traffic within a rate (`--limit-rate`): written and read bytes are paced by it.
    public var rateLimit: RateLimiter?

    /// Signals that end a write waiting for the peer at once (the user stopped the transfer): the write
    /// fails as timed out within ``writeSlice``.
    public var writeWakes: [WakeSignal] = []

    /// When set, a write waiting for the peer fails as timed out once this instant passed, whatever the
    /// peer acknowledges (a last frame that must not hold up the end).
    public var writeDeadline: ContinuousClock.Instant?

    /// How long a write may wait without the peer acknowledging a byte (``setTimeouts(receive:send:)``).
    private var sendStall: Duration?
    /// What the peer had acknowledged when that last changed (or when nothing was outstanding).
    private var acknowledged: (bytes: UInt64, at: ContinuousClock.Instant) = (0, .now)
    /// A write blocked on a full socket looks up in slices this long whether to go on waiting.
    public static let writeSlice: Duration = .milliseconds(200)

    /// How many bytes to read from TLS at a time.
    static let readChunk = 256 << 10
    /// Arrays the DATA payloads of a connection that receives data are decoded into: whoever wrote a
    /// payload gives its array back here, and the next payload reuses it.
    public let payloadBuffers: PayloadBuffers?

    /// Output is flushed automatically past this size.
    public static let flushThreshold = 512 << 10

    private init(
        socket: TCPSocket, tls: TLSConnection, endpoint: String, limits: ManifestLimits, receivesData: Bool
    ) throws(TransportError) {
        self.socket = socket
        self.tls = tls
        self.endpoint = endpoint
        guard let fingerprint = tls.peerFingerprint else {
            throw .tls(endpoint: endpoint, .peerPresentedNoCertificate)
        }
        self.peerFingerprint = fingerprint
        self.peerTrustedBy = tls.peerTrustedBy
        self.peerCATrustProblem = tls.peerCATrustProblem
        self.payloadBuffers = receivesData ? PayloadBuffers() : nil
        // Large DATA payloads are read into their own arrays, so the buffer holds smaller frames and
        // one read: it grows only for a large OFFER, and returns to this size after it.
        self.decoder = FrameDecoder(capacity: Self.readChunk * 2, limits: limits, payloadBuffers: payloadBuffers)
        output.reserveCapacity(Self.flushThreshold + FrameType.maxDataBytes + 64)
        tls.whileWriteWaits = { [unowned self] in self.writeMayWait() }
    }

    /// Connects to `endpoint` and completes the TLS handshake as a client.
    /// - Parameters:
    ///   - connectTimeout: limit for the TCP connection and the handshake.
    /// - Throws: ``TransportError``.
    public static func connect(
        to endpoint: Endpoint, context: TLSContext, connectTimeout: Duration = .seconds(10),
        limits: ManifestLimits = .protocolDefault
    ) throws(TransportError) -> SecureConnection {
        let socket = try TCPSocket.connect(to: endpoint, timeout: connectTimeout)
        return try handshake(socket: socket, context: context, timeout: connectTimeout, limits: limits, asClient: true)
    }

    /// Connects to the first of `endpoints` that accepts a TCP connection (in order: the caller
    /// ranks them), then completes the TLS handshake with it. Only connection failures move on
    /// to the next address; a TLS failure is final.
    /// - Throws: ``TransportError``; when every address fails, ``TransportError/unreachable(attempts:)``
    ///   listing each one (or that address's own error when there was only one).
    public static func connect(
        toFirstOf endpoints: [Endpoint], context: TLSContext, connectTimeout: Duration = .seconds(10),
        limits: ManifestLimits = .protocolDefault
    ) throws(TransportError) -> SecureConnection {
        var failures: [TransportError] = []
        for endpoint in endpoints {
            let socket: TCPSocket
            do {
                socket = try TCPSocket.connect(to: endpoint, timeout: connectTimeout)
            } catch {
                failures.append(error)
                continue
            }
            return try handshake(socket: socket, context: context, timeout: connectTimeout, limits: limits, asClient: true)
        }
        if failures.count == 1 { throw failures[0] }
        throw .unreachable(attempts: failures)
    }

    /// Completes the TLS handshake as a server on an accepted socket.
    public static func accept(
        _ socket: TCPSocket, context: TLSContext, handshakeTimeout: Duration = .seconds(10),
        limits: ManifestLimits = .protocolDefault
    ) throws(TransportError) -> SecureConnection {
        try handshake(socket: socket, context: context, timeout: handshakeTimeout, limits: limits, asClient: false)
    }

    private static func handshake(
        socket: TCPSocket, context: TLSContext, timeout: Duration, limits: ManifestLimits, asClient: Bool
    ) throws(TransportError) -> SecureConnection {
        let label = socket.remoteDescription
        socket.setTimeouts(receive: timeout, send: timeout)
        do {
            let tls = try TLSConnection(context: context, socket: socket.descriptor)
            try tls.handshake()
            // The accepting side (the receiver) is the one DATA frames come to.
            let connection = try SecureConnection(
                socket: socket, tls: tls, endpoint: label, limits: limits, receivesData: !asClient)
            // Until its user sets others, the handshake's limits hold.
            connection.setTimeouts(receive: timeout, send: timeout)
            return connection
        } catch let error as TLSError {
            socket.close()
            if asClient, case .connectionClosed = error { throw .closedDuringHandshake(endpoint: label) }
            if asClient, case .connectionReset = error { throw .closedDuringHandshake(endpoint: label) }
            throw .tls(endpoint: label, error)
        } catch let error as TransportError {
            socket.close()
            throw error
        } catch {
            socket.close()
            throw .closed(endpoint: label)
        }
    }

    /// Sets the timeouts for what follows: a read waits at most `receive` for a byte; a write fails
    /// once the peer has acknowledged nothing for `send` while data was waiting for it (nil: no limit).
    ///
    /// A write's progress is what the peer acknowledged, not what the socket took: bytes sitting in
    /// the kernel's buffers are no progress, and a trickle of buffer space does not restart the limit.
    public func setTimeouts(receive: Duration?, send: Duration?) {
        sendStall = send
        socket.setTimeouts(receive: receive, send: Self.writeSlice)
    }

    /// Whether a write blocked on a full socket may wait on (see ``setTimeouts(receive:send:)``).
    private func writeMayWait() -> Bool {
        if writeWakes.contains(where: \.isSignalled) { return false }
        if let writeDeadline, ContinuousClock.now >= writeDeadline { return false }
        noteAcknowledged()
        guard let sendStall else { return true }
        return ContinuousClock.now - acknowledged.at < sendStall
    }

    /// Looks at what the peer acknowledged: the stall clock restarts when that grew, or when nothing
    /// is outstanding.
    private func noteAcknowledged() {
        let written = tls.bytesWrittenToSocket
        guard let outstanding = socket.unacknowledgedBytes else {
            // The kernel does not say: what the socket took is the best measure there is.
            if written != acknowledged.bytes { acknowledged = (written, .now) }
            return
        }
        let queued = UInt64(max(0, outstanding))
        let acked = written - min(queued, written)
        if queued == 0 || acked != acknowledged.bytes { acknowledged = (acked, .now) }
    }

    // MARK: Sending

    /// Bytes waiting in the output buffer.
    public var pendingOutput: Int { output.count }

    /// Adds a frame to the output buffer (flushing first if the buffer is full).
    public func enqueue(_ frame: Frame) throws(TransportError) {
        FrameEncoder.append(frame, to: &output)
        if output.count >= Self.flushThreshold { try flush() }
    }

    /// Adds a DATA frame without building a ``Frame`` value. A payload of at least
    /// ``directPayloadMinimum`` bytes is written at once, after what is buffered and its header,
    /// from where it lies: not copied into the output buffer first.
    public func enqueueData(
        fileIndex: UInt32, offset: UInt64, encoding: DataEncoding = .raw, bytes: UnsafeRawBufferPointer
    ) throws(TransportError) {
        guard bytes.count >= Self.directPayloadMinimum else {
            FrameEncoder.appendData(fileIndex: fileIndex, offset: offset, encoding: encoding, bytes: bytes, to: &output)
            if output.count >= Self.flushThreshold { try flush() }
            return
        }
        FrameEncoder.appendDataHeader(
            fileIndex: fileIndex, offset: offset, encoding: encoding, payloadCount: bytes.count, to: &output)
        try flush(then: bytes)
    }

    /// Adds a DATA frame carrying `bytes` (see the other ``enqueueData(fileIndex:offset:encoding:bytes:)``).
    public func enqueueData(
        fileIndex: UInt32, offset: UInt64, encoding: DataEncoding = .raw, bytes: [UInt8]
    ) throws(TransportError) {
        let result: Result<Void, TransportError> = bytes.withUnsafeBytes { buffer in
            do throws(TransportError) {
                try enqueueData(fileIndex: fileIndex, offset: offset, encoding: encoding, bytes: buffer)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// DATA payloads this large skip the output buffer: the copy behind their header cost ~5 % of a
    /// sender's CPU for a large file, and the records they make are as large either way.
    static let directPayloadMinimum = 64 << 10

    /// Writes the output buffer.
    public func flush() throws(TransportError) {
        try flush(then: UnsafeRawBufferPointer(start: nil, count: 0))
    }

    /// Writes the output buffer and then `payload` (which is not buffered).
    private func flush(then payload: UnsafeRawBufferPointer) throws(TransportError) {
        guard !output.isEmpty || !payload.isEmpty else { return }
        noteAcknowledged()
        let tls = self.tls
        let rateLimit = self.rateLimit
        let result: Result<Void, TLSError> = output.withUnsafeBytes { buffer in
            do throws(TLSError) {
                guard let rateLimit else {
                    try tls.write(buffer, then: payload)
                    return .success(())
                }
                // Under a rate limit, in slices the limiter paces: the peer sees bytes arrive steadily,
                // as over a slow link, rather than a burst and then a long silence.
                for part in [buffer, payload] {
                    var start = 0
                    while start < part.count {
                        let end = min(part.count, start + rateLimit.slice)
                        try tls.write(UnsafeRawBufferPointer(rebasing: part[start..<end]))
                        rateLimit.consume(end - start)
                        start = end
                    }
                }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        if case .failure(let error) = result { throw map(error) }
        output.removeAll(keepingCapacity: true)
    }

    /// Waits until the peer has acknowledged every byte written so far, at most until `deadline`;
    /// whether it did (true too when the kernel does not say).
    public func waitUntilAcknowledged(before deadline: ContinuousClock.Instant) -> Bool {
        while let queued = socket.unacknowledgedBytes, queued > 0 {
            guard ContinuousClock.now < deadline else { return false }
            usleep(5_000)
        }
        return true
    }

    /// Writes raw bytes over TLS, bypassing the frame encoder (hostile-peer tests only).
    package func writeRaw(_ bytes: [UInt8]) throws(TransportError) {
        output.append(contentsOf: bytes)
        try flush()
    }

    /// Enqueues `frame` and flushes.
    public func send(_ frame: Frame) throws(TransportError) {
        try enqueue(frame)
        try flush()
    }

    // MARK: Receiving

    /// Returns the next frame, blocking until one arrives; nil when the peer closed cleanly.
    /// - Parameter deadline: when set, a frame that trickles in so slowly that it is not complete by
    ///   then fails with ``TransportError/timedOut(endpoint:operation:)`` (each read is also bounded by
    ///   the socket's receive timeout), so a peer cannot hold a reader with one byte at a time.
    public func receive(before deadline: ContinuousClock.Instant? = nil) throws(ConnectionError) -> Frame? {
        while true {
            do {
                if let frame = try decoder.next() { return frame }
            } catch {
                throw .wire(error)
            }
            if reachedEnd {
                do { try decoder.finish() } catch { throw .wire(error) }
                return nil
            }
            if let deadline {
                // Each read waits only until the deadline, not for the socket's whole receive timeout.
                let left = deadline - ContinuousClock.now
                guard left > .zero, tls.hasBufferedBytes || socket.waitReadable(timeout: left) else {
                    throw .transport(.timedOut(endpoint: endpoint, operation: "receiving"))
                }
            }
            try fill()
        }
    }

    /// Bytes received from the peer so far (after decryption).
    public private(set) var bytesReceived: UInt64 = 0
    /// When the last bytes from the peer arrived (the connection's start until then): a reader can
    /// tell a peer that is silent from one whose frame is still arriving.
    public private(set) var lastArrival = ContinuousClock.now

    /// Waits until a frame can be read (one is buffered, or the socket is readable) or one of
    /// `wakes` is signalled, at most `timeout` (nil: forever).
    public func waitForFrame(orWake wakes: [WakeSignal], timeout: Duration?) -> TCPSocket.Readiness {
        if decoder.hasCompleteFrame || reachedEnd || tls.hasBufferedBytes { return .readable }
        return socket.waitReadable(orWake: wakes, timeout: timeout)
    }

    /// What ``next(orWake:timeout:)`` brought.
    public enum Arrival {
        /// A frame.
        case frame(Frame)
        /// The peer closed the connection cleanly.
        case end
        /// One of the wakes was signalled before a frame came.
        case woken
        /// Nothing came within the timeout.
        case timedOut
        /// The bytes broke the protocol, or the connection failed.
        case failure(ConnectionError)
    }

    /// The next frame, unless one of `wakes` is signalled or `timeout` passes first (nil: no limit;
    /// the frame must also be complete by then).
    public func next(orWake wakes: [WakeSignal], timeout: Duration?) -> Arrival {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        switch waitForFrame(orWake: wakes, timeout: timeout) {
        case .woken: return .woken
        case .timedOut: return .timedOut
        case .readable: break
        }
        do {
            guard let frame = try receive(before: deadline) else { return .end }
            return .frame(frame)
        } catch .transport(.timedOut) {
            return .timedOut
        } catch {
            return .failure(error)
        }
    }

    /// Whether ``receive()`` can return a frame without reading from the network.
    public var hasBufferedFrame: Bool { decoder.hasCompleteFrame }

    /// Returns a frame if one is already buffered or can be read without waiting; nil otherwise.
    public func receiveIfReady() throws(ConnectionError) -> Frame? {
        do {
            if let frame = try decoder.next() { return frame }
        } catch {
            throw .wire(error)
        }
        guard !reachedEnd, tls.hasBufferedBytes || socket.waitReadable(timeout: .zero) else { return nil }
        try fill()
        do {
            return try decoder.next()
        } catch {
            throw .wire(error)
        }
    }

    private func fill() throws(ConnectionError) {
        let tls = self.tls
        do {
            let count = try decoder.readInto(minimumSpace: Self.readChunk) { buffer throws(TLSError) in
                try tls.read(into: buffer)
            }
            if count == 0 { reachedEnd = true } else { lastArrival = .now }
            bytesReceived += UInt64(count)
            rateLimit?.consume(count)
        } catch {
            throw .transport(map(error))
        }
    }

    // MARK: Closing

    /// Sends TLS close_notify and closes the socket.
    public func close() {
        tls.close()
        socket.close()
    }

    /// Sends close_notify, stops sending, and reads (discarding) until the peer closes or `drainFor`
    /// passes, so the peer reads our last frames instead of a connection reset.
    public func closeGracefully(drainFor: Duration) {
        tls.close()
        socket.shutdownWrite()
        socket.drain(for: drainFor)
        socket.close()
    }

    /// Stops reading from another thread: a blocked read sees end of stream, and this side can still
    /// send a last frame.
    public func cancelReading() {
        socket.shutdownRead()
    }

    /// Cancels from another thread: blocked reads and writes fail at once.
    public func cancel() {
        socket.shutdown()
    }

    private func map(_ error: TLSError) -> TransportError {
        switch error {
        case .timedOut: .timedOut(endpoint: endpoint, operation: "waiting for the peer")
        case .connectionClosed, .connectionReset: .closed(endpoint: endpoint)
        default: .tls(endpoint: endpoint, error)
        }
    }
}

@available(*, unavailable)
extension SecureConnection: Sendable {}
