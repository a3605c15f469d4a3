// ShareTLS: one TLS 1.3 session over a connected, blocking socket.

internal import CShareOpenSSL

#if canImport(Glibc)
    import Glibc
#endif

/// A TLS 1.3 session over a connected blocking socket: handshake, then reads and writes.
///
/// The socket stays the transport's: this class never closes it. The transport sets `SO_RCVTIMEO` /
/// `SO_SNDTIMEO` for timeouts (reported as ``TLSError/timedOut``) and may cancel a blocked call from another
/// thread with `shutdown(fd, SHUT_RDWR)` (reported as ``TLSError/connectionClosed``).
///
/// After the handshake, the caller must check ``peerFingerprint`` against what it trusts before it sends or
/// accepts any application data: certificates are self-signed, so the handshake only proves the peer holds
/// the key whose fingerprint that is.
///
/// > Warning: confined to one thread at a time (not `Sendable`). Every call blocks.
public final class TLSConnection {
    /// Where a connection is in its life.
    private enum State {
        case new, established, closed
        case failed(TLSError)
    }

    /// The `SSL` ex-data slot holding the connection's ``SocketChannel`` (slot 0: OpenSSL's "app data").
    static let channelIndex: Int32 = 0

    /// The context, kept alive while the `SSL` uses it.
    private let context: TLSContext

    /// The `SSL`, owned by this object.
    private let ssl: OpaquePointer

    /// The BIO and what it saw. Released after the `SSL` (see ``SocketChannel``).
    private let channel: SocketChannel

    private var state = State.new

    /// An error found while collecting extra data after a successful read, reported by the next read.
    private var deferredReadError: TLSError?

    /// What the team CAs say about the peer, decided once the handshake succeeded.
    private var caVerdict = TrustAnchors.Verdict()

    /// Starts a TLS session on a connected socket. Nothing is sent until ``handshake()``.
    ///
    /// - Parameters:
    ///   - context: a server or client context; it decides whether this side accepts or connects.
    ///   - fd: a connected stream socket, not owned (the caller closes it after this object is gone).
    /// - Throws: ``TLSError/openSSL(operation:reasons:)`` if OpenSSL cannot allocate the session.
    public init(context: TLSContext, socket fd: Int32) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard let ssl = openssl.SSL_new(context.pointer) else {
            throw .openSSL(operation: "setup", reasons: OpenSSLErrorQueue.drainTexts(fallback: "SSL_new failed"))
        }
        guard let channel = SocketChannel(fd: fd) else {
            openssl.SSL_free(ssl)
            throw .openSSL(operation: "setup", reasons: OpenSSLErrorQueue.drainTexts(fallback: "BIO_new failed"))
        }
        // The SSL takes the BIO's only reference (one reference serves as both read and write BIO).
        openssl.SSL_set_bio(ssl, channel.bio, channel.bio)
        _ = openssl.SSL_set_ex_data(ssl, TLSConnection.channelIndex, Unmanaged.passUnretained(channel).toOpaque())
        switch context.role {
        case .server: openssl.SSL_set_accept_state(ssl)
        case .client: openssl.SSL_set_connect_state(ssl)
        }
        self.context = context
        self.ssl = ssl
        self.channel = channel
    }

    deinit {
        // Frees the BIO too; the channel it points to is released after this.
        openssl.SSL_free(ssl)
    }

    // MARK: - Handshake

    /// Runs the TLS 1.3 handshake (accept on a server context, connect on a client context). Blocks.
    ///
    /// On success both sides have presented certificates that passed verification (expiry, signature, usage);
    /// check ``peerFingerprint`` next. A client whose certificate the server refuses still completes its
    /// handshake (TLS 1.3): it gets ``TLSError/peerRefusedOurCertificate(_:)`` from its first ``read(into:)``.
    ///
    /// - Throws: ``TLSError``: e.g. ``TLSError/peerPresentedNoCertificate``,
    ///   ``TLSError/peerCertificateRejected(_:)``, ``TLSError/peerDoesNotSpeakTLS13(_:)``,
    ///   ``TLSError/timedOut``.
    /// The corresponding C function is `SSL_do_handshake`.
    public func handshake() throws(TLSError) {
        switch state {
        case .new: break
        case .established: return
        case .closed: throw .connectionClosed
        case .failed(let error): throw error
        }
        OpenSSLErrorQueue.clear()
        channel.reset()
        let result = openssl.SSL_do_handshake(ssl)
        guard result == 1 else {
            let error = failure(result, operation: .handshake)
            state = .failed(error)
            throw error
        }
        // Belt and braces: the verification mode already guarantees both, whatever OpenSSL version runs.
        // (A server for LocalSend senders asks them for nothing: they present no certificate.)
        guard context.requiresPeerCertificate else {
            state = .established
            return
        }
        guard openssl.SSL_get0_peer_certificate(ssl) != nil else {
            state = .failed(.peerPresentedNoCertificate)
            throw .peerPresentedNoCertificate
        }
        let verification = Int32(openssl.SSL_get_verify_result(ssl))
        guard verification == X509_V_OK else {
            let error = TLSError.peerCertificateRejected(certificateProblem(verification))
            state = .failed(error)
            throw error
        }
        if let leaf = openssl.SSL_get0_peer_certificate(ssl) {
            caVerdict = context.anchors.evaluate(
                leaf: leaf, untrusted: openssl.SSL_get_peer_cert_chain(ssl), peerIsClient: context.role == .server)
        }
        state = .established
    }

    // MARK: - Peer and session facts

    /// The socket this session runs over (not owned).
    package var socketDescriptor: Int32 { channel.fd }

    /// The team CA that issued the peer's certificate, when it is one of the context's
    /// ``TLSContext/anchors`` and the whole chain validates; `nil` before the handshake and for every other
    /// peer (self-signed, issued by a CA this node did not add, or by a team CA that has expired).
    ///
    /// A CA-trusted peer is still identified by ``peerFingerprint``; the CA only vouches that it belongs to the
    /// team, so a caller may accept it without a verification code.
    public var peerTrustedBy: CAInfo? { caVerdict.authority }

    /// Why a peer whose chain leads to one of the team CAs is nevertheless not CA-trusted (e.g.
    /// "certificate has expired (team CA "Acme")"), for messages; `nil` otherwise.
    public var peerCATrustProblem: String? { caVerdict.problem }

    /// The peer's identity: SHA-256 of its certificate's public key. `nil` before the handshake.
    public var peerFingerprint: Fingerprint? {
        guard let certificate = openssl.SSL_get0_peer_certificate(ssl), let key = openssl.X509_get0_pubkey(certificate)
        else {
            return nil
        }
        return publicKeyFingerprint(key)
    }

    /// The peer's certificate in PEM form. `nil` before the handshake.
    public var peerCertificatePEM: String? {
        guard let pointer = openssl.SSL_get0_peer_certificate(ssl), let certificate = Certificate(sharing: pointer)
        else {
            return nil
        }
        return certificate.pem
    }

    /// The negotiated protocol, e.g. `TLSv1.3`.
    public var protocolVersion: String {
        openssl.SSL_get_version(ssl).map { String(cString: $0) } ?? ""
    }

    /// The negotiated cipher suite, e.g. `TLS_AES_256_GCM_SHA384`; empty before the handshake.
    public var cipher: String {
        guard let cipher = openssl.SSL_get_current_cipher(ssl), let name = openssl.SSL_CIPHER_get_name(cipher) else {
            return ""
        }
        return String(cString: name)
    }

    // MARK: - Data

    /// Whether OpenSSL holds received bytes a read would return without waiting for the socket.
    /// The corresponding C function is `SSL_has_pending`.
    public var hasBufferedBytes: Bool { openssl.SSL_has_pending(ssl) == 1 }

    /// Reads decrypted bytes into `buffer`. Blocks until at least one byte is available.
    ///
    /// Returns as soon as some data has arrived, having also taken whatever further data was already waiting
    /// (up to the buffer's size), so a large buffer means few calls.
    ///
    /// - Parameter buffer: where to put the bytes; must not be empty.
    /// - Returns: the number of bytes read; 0 when the peer closed the session cleanly (close_notify).
    /// - Throws: ``TLSError/connectionClosed`` if the connection ended without close_notify (the peer went
    ///   away, or another thread shut the socket down), ``TLSError/timedOut`` after `SO_RCVTIMEO` (reading
    ///   again is allowed), ``TLSError/peerRefusedOurCertificate(_:)`` on a client whose certificate the server
    ///   refused.
    /// The corresponding C function is `SSL_read_ex`.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(TLSError) -> Int {
        try requireEstablished()
        if let error = deferredReadError {
            deferredReadError = nil
            state = .failed(error)
            throw error
        }
        guard let base = buffer.baseAddress, buffer.count > 0 else {
            preconditionFailure("TLSConnection.read(into:) needs a non-empty buffer (0 means a clean close)")
        }

        OpenSSLErrorQueue.clear()
        channel.reset()
        var total = 0
        let result = openssl.SSL_read_ex(ssl, base, buffer.count, &total)
        guard result == 1 else {
            if openssl.SSL_get_error(ssl, result) == SSL_ERROR_ZERO_RETURN {
                _ = OpenSSLErrorQueue.drain()
                return 0
            }
            let error = failure(result, operation: .read)
            // A timeout leaves the session intact: the caller may read again.
            if error != .timedOut { state = .failed(error) }
            throw error
        }

        // Take what has already arrived without blocking again.
        channel.nonBlocking = true
        defer { channel.nonBlocking = false }
        while total < buffer.count {
            OpenSSLErrorQueue.clear()
            channel.reset()
            var more = 0
            let result = openssl.SSL_read_ex(ssl, base + total, buffer.count - total, &more)
            if result == 1 {
                total += more
                continue
            }
            let code = openssl.SSL_get_error(ssl, result)
            if code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE || code == SSL_ERROR_ZERO_RETURN {
                // Nothing more for now (or a key-update reply waiting for socket space, which the next read
                // sends), or a clean close the next read reports (OpenSSL remembers it).
                _ = OpenSSLErrorQueue.drain()
            } else {
                deferredReadError = failure(result, operation: .read)
            }
            break
        }
        return total
    }

    /// Bytes of TLS records the socket has taken so far: what the peer acknowledged is this minus the
    /// socket's send queue (`SIOCOUTQ`).
    public var bytesWrittenToSocket: UInt64 { channel.bytesSent }

    /// Decides how long ``write(_:)`` waits while the socket takes nothing: asked each time a `send` ended
    /// with the socket's buffer still full after `SO_SNDTIMEO`; `true` waits on, `false` fails the write with
    /// ``TLSError/timedOut``. Without it, the first such timeout fails the write. A caller that sets a short
    /// `SO_SNDTIMEO` and decides here can give up on its own deadline, or at once when told to stop.
    public var whileWriteWaits: (() -> Bool)? {
        get { channel.keepWaiting }
        set { channel.keepWaiting = newValue }
    }

    /// Encrypts and sends all of `bytes`. Blocks until the socket has taken them.
    ///
    /// Large buffers are cheap: records are collected into ~256 KiB `send` calls.
    ///
    /// - Throws: ``TLSError/timedOut`` after `SO_SNDTIMEO` (the session is then unusable: close it),
    ///   ``TLSError/connectionClosed`` / ``TLSError/connectionReset`` if the peer went away.
    /// The corresponding C function is `SSL_write_ex`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(TLSError) {
        try write(bytes, then: UnsafeRawBufferPointer(start: nil, count: 0))
    }

    /// Writes `first` and then `second` as one stream of bytes, in as few `send` calls as one buffer
    /// would take (a frame's header and its payload where each lies, without copying them together).
    public func write(_ first: UnsafeRawBufferPointer, then second: UnsafeRawBufferPointer) throws(TLSError) {
        try requireEstablished()
        guard first.count + second.count > 0 else { return }
        OpenSSLErrorQueue.clear()
        channel.reset()
        channel.coalescing = true
        func encrypt(_ bytes: UnsafeRawBufferPointer) throws(TLSError) {
            guard let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                var written = 0
                let result = openssl.SSL_write_ex(ssl, base + offset, bytes.count - offset, &written)
                guard result == 1 else {
                    channel.coalescing = false
                    let error = explainedWriteFailure(failure(result, operation: .write))
                    state = .failed(error)
                    throw error
                }
                offset += written
            }
        }
        try encrypt(first)
        try encrypt(second)
        channel.coalescing = false
        guard channel.flush() else {
            let error = explainedWriteFailure(socketFailure(operation: .write))
            state = .failed(error)
            throw error
        }
    }

    /// When a write fails because the peer hung up, the peer may have said why first: with TLS 1.3 a server
    /// that refuses the client's certificate sends its alert and closes, and a client that writes before it
    /// reads then sees only the reset. Any alert that already arrived is still queued on the socket: read it
    /// (without blocking) and report that instead.
    private func explainedWriteFailure(_ error: TLSError) -> TLSError {
        guard error == .connectionReset || error == .connectionClosed else { return error }
        OpenSSLErrorQueue.clear()
        channel.reset()
        channel.coalescing = false
        channel.nonBlocking = true
        defer { channel.nonBlocking = false }
        var scratch = [UInt8](repeating: 0, count: 512)
        var count = 0
        let result = scratch.withUnsafeMutableBytes { openssl.SSL_read_ex(ssl, $0.baseAddress, $0.count, &count) }
        guard result != 1 else { return error }
        let code = openssl.SSL_get_error(ssl, result)
        guard code == SSL_ERROR_SSL else {
            _ = OpenSSLErrorQueue.drain()
            return error
        }
        switch failure(result, operation: .read) {
        case .peerRefusedOurCertificate(let refusal): return .peerRefusedOurCertificate(refusal)
        case .peerAborted(let alert): return .peerAborted(alert: alert)
        case .peerDoesNotSpeakTLS13(let mismatch): return .peerDoesNotSpeakTLS13(mismatch)
        default: return error
        }
    }

    /// Sends close_notify (best effort, without blocking) and ends the session. Safe to call more than once.
    ///
    /// The socket is not closed: that is the transport's job, after this.
    /// The corresponding C function is `SSL_shutdown`.
    public func close() {
        if case .established = state {
            OpenSSLErrorQueue.clear()
            channel.reset()
            channel.nonBlocking = true
            _ = openssl.SSL_shutdown(ssl)
            channel.nonBlocking = false
            _ = OpenSSLErrorQueue.drain()
        }
        state = .closed
    }

    // MARK: - Errors

    /// What the failing operation was doing, for messages.
    private enum Operation: String {
        case handshake, read, write
    }

    private func requireEstablished() throws(TLSError) {
        switch state {
        case .established: return
        case .new: throw .openSSL(operation: "use", reasons: ["the handshake has not been run yet"])
        case .closed: throw .connectionClosed
        case .failed(let error): throw error
        }
    }

    /// Builds the error for a failed `SSL_*` call, from `SSL_get_error`, the error queue, the verification
    /// result and the socket's errno. Drains the error queue.
    private func failure(_ result: Int32, operation: Operation) -> TLSError {
        let code = openssl.SSL_get_error(ssl, result)
        let entries = OpenSSLErrorQueue.drain()
        switch code {
        case SSL_ERROR_ZERO_RETURN:
            return .connectionClosed
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return socketFailure(operation: operation)
        case SSL_ERROR_SYSCALL:
            return socketFailure(operation: operation)
        default:
            if let classified = classify(entries, operation: operation) { return classified }
            if channel.lastErrno != 0 || channel.sawEndOfStream { return socketFailure(operation: operation) }
            let reasons = entries.map(\.text)
            return .openSSL(operation: operation.rawValue, reasons: reasons.isEmpty ? ["SSL error \(code)"] : reasons)
        }
    }

    /// The error for a failed socket call (or a peer that vanished), from the channel's errno.
    private func socketFailure(operation: Operation) -> TLSError {
        switch channel.lastErrno {
        case EAGAIN, EWOULDBLOCK: return .timedOut
        case ECONNRESET: return .connectionReset
        case EPIPE, ESHUTDOWN, ENOTCONN, 0: return .connectionClosed
        case let code: return .system(operation: operation.rawValue, errno: code)
        }
    }

    /// Recognizes the failures a user should hear about precisely; `nil` for the rest.
    private func classify(_ entries: [OpenSSLErrorEntry], operation: Operation) -> TLSError? {
        for entry in entries where entry.library == ERR_LIB_SSL {
            let reason = entry.reason
            switch reason {
            case SSL_R_PEER_DID_NOT_RETURN_A_CERTIFICATE:
                return .peerPresentedNoCertificate
            case SSL_R_CERTIFICATE_VERIFY_FAILED:
                return .peerCertificateRejected(certificateProblem(Int32(openssl.SSL_get_verify_result(ssl))))
            case SSL_R_UNSUPPORTED_PROTOCOL, SSL_R_WRONG_SSL_VERSION, SSL_R_UNSUPPORTED_SSL_VERSION,
                SSL_R_VERSION_TOO_LOW, SSL_R_TLSV1_ALERT_PROTOCOL_VERSION:
                return .peerDoesNotSpeakTLS13(.olderTLSVersion)
            case SSL_R_HTTP_REQUEST, SSL_R_HTTPS_PROXY_REQUEST:
                return .peerDoesNotSpeakTLS13(.httpRequest)
            case SSL_R_WRONG_VERSION_NUMBER, SSL_R_PACKET_LENGTH_TOO_LONG, SSL_R_RECORD_LENGTH_MISMATCH,
                SSL_R_ENCRYPTED_LENGTH_TOO_LONG, SSL_R_LENGTH_TOO_SHORT, SSL_R_UNEXPECTED_RECORD:
                // Nonsense where the first TLS record should be. Later in a session the same reasons mean
                // corrupted records, which are reported as they are.
                if operation == .handshake { return .peerDoesNotSpeakTLS13(.notTLS) }
            case SSL_R_UNEXPECTED_EOF_WHILE_READING:
                return .connectionClosed
            case SSL_AD_REASON_OFFSET..<(SSL_AD_REASON_OFFSET + 256):
                return alertReceived(reason - SSL_AD_REASON_OFFSET)
            default:
                break
            }
        }
        return nil
    }

    /// The error for a fatal alert the peer sent.
    private func alertReceived(_ alert: Int32) -> TLSError {
        switch alert {
        case SSL_AD_CERTIFICATE_REQUIRED: return .peerRefusedOurCertificate(.certificateRequired)
        case SSL_AD_CERTIFICATE_EXPIRED: return .peerRefusedOurCertificate(.certificateExpired)
        case SSL_AD_BAD_CERTIFICATE: return .peerRefusedOurCertificate(.badCertificate)
        case SSL_AD_UNKNOWN_CA: return .peerRefusedOurCertificate(.unknownIssuer)
        case SSL_AD_DECRYPT_ERROR: return .peerRefusedOurCertificate(.invalidSignature)
        case SSL_AD_UNSUPPORTED_CERTIFICATE, SSL_AD_CERTIFICATE_REVOKED, SSL_AD_CERTIFICATE_UNKNOWN:
            return .peerRefusedOurCertificate(.other(alert: alertText(alert)))
        case SSL_AD_PROTOCOL_VERSION: return .peerDoesNotSpeakTLS13(.olderTLSVersion)
        default: return .peerAborted(alert: alertText(alert))
        }
    }

    /// OpenSSL's long name for an alert, e.g. "certificate expired".
    private func alertText(_ alert: Int32) -> String {
        guard let text = openssl.SSL_alert_desc_string_long(alert) else { return "alert \(alert)" }
        return String(cString: text)
    }

    /// What was wrong with the peer's certificate, from the verification result and what the verification
    /// callback recorded.
    private func certificateProblem(_ result: Int32) -> TLSError.CertificateProblem {
        let recorded = channel.verificationFailure
        let code = recorded?.code ?? result
        switch code {
        case X509_V_ERR_CERT_HAS_EXPIRED:
            return .expired(notAfter: recorded?.notAfter)
        case X509_V_ERR_CERT_NOT_YET_VALID:
            return .notYetValid(notBefore: recorded?.notBefore)
        case X509_V_ERR_CERT_SIGNATURE_FAILURE, X509_V_ERR_UNABLE_TO_DECRYPT_CERT_SIGNATURE:
            return .invalidSignature
        default:
            let text = openssl.X509_verify_cert_error_string(Int(code)).map { String(cString: $0) } ?? "error \(code)"
            let depth = recorded?.depth ?? 0
            return .unacceptable(reason: depth > 0 ? "\(text) (certificate \(depth) of its chain)" : text)
        }
    }
}

@available(*, unavailable)
extension TLSConnection: Sendable {}
