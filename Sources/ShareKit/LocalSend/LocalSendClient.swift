import Foundation
import ShareHTTP
import ShareLocalSend
import Synchronization
import ShareTLS
import ShareTransport

/// HTTPS requests to one LocalSend device, each on a connection of its own whose certificate is
/// checked against the fingerprint expected of the device before a byte of the request is written.
struct LocalSendClient {
    /// Where the device listens.
    let endpoint: Endpoint
    /// The name shown in messages (`"Ana's phone" at 10.0.0.5:53317`).
    let label: String
    /// The fingerprint its certificate must have (upper- or lower-case hex SHA-256 of the DER);
    /// nil: any, and the one seen is returned (a device reached by address, pinned on first use).
    let expectedFingerprint: String?
    /// How long to connect, and to wait for each read and write.
    let timeout: Duration

    /// What a request sends as its body.
    enum Body {
        case none
        case json([UInt8])
        /// Bytes of a file that is not on disk (a `--text`).
        case bytes([UInt8])
        /// A file, read from its start; the bytes sent so far are told to `progress`.
        case file(SourceFile, progress: (UInt64) -> Void)
    }

    /// Sends one request; returns the answer and the fingerprint the connection proved.
    ///
    /// - Parameter answerWait: how long the answer may take (a person may be deciding).
    func send(
        _ method: String, _ target: String, body: Body, answerWait: Duration? = nil, cancellation: SendCancellation? = nil,
        limiter: RateLimiter? = nil
    ) throws(LocalSendError) -> (answer: HTTPMessage, fingerprint: String) {
        let stream: TLSStream
        do {
            stream = try TLSStream.connect(to: endpoint, context: try Self.context(), timeout: timeout)
        } catch let error as TransportError {
            throw LocalSendError("cannot reach \(label): \(error)", outcome: error.isUnreachable ? "unreachable" : "failed")
        } catch {
            throw LocalSendError("cannot reach \(label): \(error)", outcome: "unreachable")
        }
        defer { stream.close() }
        // Ctrl-C wakes a request that waits (a person deciding, a slow upload).
        let finished = Atomic<Bool>(false)
        if let cancellation {
            let interruptible = UncheckedStream(stream: stream)
            Thread.detachNewThread {
                while !finished.load(ordering: .acquiring) {
                    if cancellation.wake.wait(timeout: .milliseconds(100)) {
                        if !finished.load(ordering: .acquiring) { interruptible.stream.interrupt() }
                        return
                    }
                }
            }
        }
        defer { finished.store(true, ordering: .releasing) }
        let seen = stream.peerCertificatePEM.map(LocalSendIdentity.fingerprint(ofPEM:)) ?? ""
        if let expected = expectedFingerprint, !LocalSendDevice.sameFingerprint(expected, seen) {
            var mismatch = LocalSendError(
                "\(label) presented another certificate (fingerprint \(seen.prefix(16))…) than the one it announced or that was "
                    + "seen before (\(expected.prefix(16))…): nothing was sent; it may be another device using its address",
                outcome: "identityMismatch")
            mismatch.fingerprint = seen
            throw mismatch
        }
        do {
            try write(method, target, body: body, to: stream, limiter: limiter)
            stream.setTimeouts(receive: answerWait ?? timeout, send: timeout)
            return (try readAnswer(from: stream), seen)
        } catch let error as TransportError {
            if cancellation?.isCancelled == true { throw LocalSendError("cancelled", outcome: "cancelled") }
            if case .tls(_, .timedOut) = error {
                let waited = (answerWait ?? timeout).components.seconds
                throw LocalSendError("\(label) did not answer within \(waited) s; nothing more was sent", outcome: "noAnswer")
            }
            throw LocalSendError("the connection to \(label) failed: \(error)")
        } catch let error as HTTPParseError {
            throw LocalSendError("\(label) answered something that is not HTTP: \(error)")
        } catch let error as LocalSendError {
            throw error
        } catch {
            throw LocalSendError("the request to \(label) failed: \(error)")
        }
    }

    private static func context() throws -> TLSContext { try TLSContext.clientWithoutCertificate() }

    private func write(_ method: String, _ target: String, body: Body, to stream: TLSStream, limiter: RateLimiter?) throws {
        var length: UInt64 = 0
        var type = ""
        switch body {
        case .none: break
        case .json(let bytes):
            length = UInt64(bytes.count)
            type = "Content-Type: application/json\r\n"
        case .bytes(let bytes):
            length = UInt64(bytes.count)
            type = "Content-Type: application/octet-stream\r\n"
        case .file(let file, _):
            length = file.size
            type = "Content-Type: application/octet-stream\r\n"
        }
        let head =
            "\(method) \(target) HTTP/1.1\r\nHost: \(endpoint.host):\(endpoint.port)\r\nUser-Agent: share\r\n\(type)"
            + "Content-Length: \(length)\r\nConnection: close\r\n\r\n"
        try Array(head.utf8).withUnsafeBytes { try stream.write($0) }
        switch body {
        case .none: break
        case .json(let bytes), .bytes(let bytes): try bytes.withUnsafeBytes { try stream.write($0) }
        case .file(let file, let progress):
            if let failure = file.rewind() { throw LocalSendError(failure.message) }
            var sent: UInt64 = 0
            while sent < file.size {
                let piece: [UInt8]
                let most = limiter.map { min($0.slice, FileReader.chunkSize) } ?? FileReader.chunkSize
                switch file.read(Int(min(UInt64(most), file.size - sent))) {
                case .success(let bytes): piece = bytes
                case .failure(let failure): throw LocalSendError(failure.message)
                }
                try piece.withUnsafeBytes { try stream.write($0) }
                limiter?.consume(piece.count)
                sent += UInt64(piece.count)
                progress(sent)
            }
            if let failure = file.changed() { throw LocalSendError(failure.message) }
        }
    }

    private func readAnswer(from stream: TLSStream) throws -> HTTPMessage {
        let parser = HTTPMessageParser(.response)
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = try buffer.withUnsafeMutableBytes { try stream.read(into: $0) }
            if count == 0 {
                guard let answer = try parser.finish() else { throw LocalSendError("\(label) closed the connection without an answer") }
                return answer
            }
            if let answer = try buffer.withUnsafeBytes({ try parser.feed(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }) {
                return answer
            }
        }
    }
}

/// A stream handed to the thread that interrupts it on Ctrl-C: ``TLSStream/interrupt()`` only shuts
/// the socket down, which is safe from any thread, and the stream outlives that thread's use of it
/// (the request waits for `finished` before it closes).
private struct UncheckedStream: @unchecked Sendable {
    let stream: TLSStream
}
