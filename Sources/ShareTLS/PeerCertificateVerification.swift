// ShareTLS: the certificate-verification rule for peers (self-signed accepted, everything else checked).

internal import CShareOpenSSL

/// The verification errors that only say "this certificate is not vouched for by a CA we know", which is
/// expected of a node's self-signed certificate, and of one issued by a team CA this node has not added: trust
/// then comes from pinning the fingerprint after the handshake (ShareKit), not from a CA.
///
/// OpenSSL 3.0 reports DEPTH_ZERO_SELF_SIGNED_CERT for a node's self-signed certificate (checked), and
/// UNABLE_TO_GET_ISSUER_CERT_LOCALLY then UNABLE_TO_VERIFY_LEAF_SIGNATURE for a CA-issued one whose CA is
/// unknown (checked); other OpenSSL versions may report the latter two for self-signed certificates whose
/// keyUsage lacks keyCertSign.
private let issuerUnknownErrors: Set<Int32> = [
    X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT,
    X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
    X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE,
]

/// OpenSSL's verification callback for every share TLS context (a file-level function: no captures).
///
/// The peer's own certificate (depth 0) is what identifies it, so it is checked in full: it is accepted when
/// its only problems are in ``issuerUnknownErrors``, and then its self-signature (OpenSSL does not verify the
/// signature of a self-signed leaf it cannot chain to a trust anchor; checked: a forged one is otherwise
/// accepted) and its validity dates are checked here. (OpenSSL 3.0 checks those dates itself even when it finds
/// no issuer, checked; repeating the check means no OpenSSL version can let an expired leaf through this path.)
/// Everything else about it is refused: expired or not-yet-valid, bad signature (including a bad signature by
/// a team CA it claims as issuer), wrong key usage or purpose.
///
/// Problems above the leaf (depth > 0: an unknown root the peer sent along, a team CA of ours that has
/// expired) are accepted: the chain above the leaf only matters for *CA trust*, which ``TLSConnection``
/// decides after the handshake by validating the chain afresh against the team CAs
/// (``TrustAnchors/evaluate(leaf:untrusted:peerIsClient:)``). Such a peer is identified by its key alone, like
/// one with a self-signed certificate.
///
/// The first rejection is recorded on the connection's ``SocketChannel`` so the error can say exactly what was
/// wrong. This callback is not where trust is decided: it runs on every handshake (there is no session
/// resumption), and the caller pins the peer's fingerprint, or accepts its CA, after the handshake.
///
/// The corresponding C type is `SSL_verify_cb`.
func verifyPeerCertificate(_ preverifyOK: Int32, _ store: OpaquePointer?) -> Int32 {
    guard let store else { return 0 }
    if preverifyOK == 1 { return 1 }
    let error = openssl.X509_STORE_CTX_get_error(store)
    let depth = openssl.X509_STORE_CTX_get_error_depth(store)
    let certificate = openssl.X509_STORE_CTX_get_current_cert(store)

    guard depth == 0 else {
        // Above the leaf: no trust comes from here unless TLSConnection's own validation says so.
        openssl.X509_STORE_CTX_set_error(store, X509_V_OK)
        return 1
    }
    guard issuerUnknownErrors.contains(error), let certificate else {
        record(error, depth: depth, certificate: certificate, in: store)
        return 0
    }
    if certificateClaimsSelfIssued(certificate) && !selfSignatureVerifies(certificate) {
        return reject(X509_V_ERR_CERT_SIGNATURE_FAILURE, certificate: certificate, in: store)
    }
    if let problem = validityProblem(certificate) {
        return reject(problem, certificate: certificate, in: store)
    }
    // Acceptable: clear the error so that SSL_get_verify_result reports success.
    openssl.X509_STORE_CTX_set_error(store, X509_V_OK)
    return 1
}

/// Records `code` for the leaf and makes it the verification's error.
private func reject(_ code: Int32, certificate: OpaquePointer, in store: OpaquePointer) -> Int32 {
    record(code, depth: 0, certificate: certificate, in: store)
    openssl.X509_STORE_CTX_set_error(store, code)
    return 0
}

/// `X509_V_ERR_CERT_HAS_EXPIRED` or `X509_V_ERR_CERT_NOT_YET_VALID` if `certificate` is not valid now (or a
/// field error if a date is malformed), else `nil`.
///
/// The corresponding C function is `X509_cmp_current_time`.
private func validityProblem(_ certificate: OpaquePointer) -> Int32? {
    _ = openssl.ERR_set_mark()
    defer { _ = openssl.ERR_pop_to_mark() }
    switch openssl.X509_cmp_current_time(openssl.X509_get0_notBefore(certificate)) {
    case 0: return X509_V_ERR_ERROR_IN_CERT_NOT_BEFORE_FIELD
    case 1: return X509_V_ERR_CERT_NOT_YET_VALID
    default: break
    }
    switch openssl.X509_cmp_current_time(openssl.X509_get0_notAfter(certificate)) {
    case 0: return X509_V_ERR_ERROR_IN_CERT_NOT_AFTER_FIELD
    case -1: return X509_V_ERR_CERT_HAS_EXPIRED
    default: return nil
    }
}

/// Whether the signature of `certificate` verifies with its own public key, leaving OpenSSL's error queue as
/// it was (the handshake's own errors must not be disturbed).
private func selfSignatureVerifies(_ certificate: OpaquePointer) -> Bool {
    guard let key = openssl.X509_get0_pubkey(certificate) else { return false }
    _ = openssl.ERR_set_mark()
    let verified = openssl.X509_verify(certificate, key) == 1
    _ = openssl.ERR_pop_to_mark()
    return verified
}

/// Records the first verification failure on the connection that is verifying.
private func record(_ code: Int32, depth: Int32, certificate: OpaquePointer?, in store: OpaquePointer) {
    guard let ssl = openssl.X509_STORE_CTX_get_ex_data(store, openssl.SSL_get_ex_data_X509_STORE_CTX_idx()),
        let data = openssl.SSL_get_ex_data(OpaquePointer(ssl), TLSConnection.channelIndex)
    else { return }
    // The channel outlives every SSL call of its connection (see SocketChannel.init).
    let channel = Unmanaged<SocketChannel>.fromOpaque(data).takeUnretainedValue()
    guard channel.verificationFailure == nil else { return }
    channel.verificationFailure = VerificationFailure(
        code: code, depth: depth,
        notBefore: certificate.flatMap { date(openssl.X509_get0_notBefore($0)) },
        notAfter: certificate.flatMap { date(openssl.X509_get0_notAfter($0)) })
}
