// ShareTLS: the certificate-verification rule for peers (self-signed accepted, everything else checked).

internal import CShareOpenSSL

/// The verification errors that only say "this certificate is not vouched for by a CA we know", which is
/// expected of a node's self-signed certificate: trust comes from pinning the fingerprint after the handshake
/// (ShareKit), not from a CA.
///
/// OpenSSL 3.0 reports DEPTH_ZERO_SELF_SIGNED_CERT for a node's certificate (checked); the other two are what a
/// certificate issued by a CA we do not know produces, and what other OpenSSL versions may report for
/// self-signed certificates whose keyUsage lacks keyCertSign.
private let issuerUnknownErrors: Set<Int32> = [
    X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT,
    X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
    X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE,
]

/// OpenSSL's verification callback for every share TLS context (a file-level function: no captures).
///
/// Accepts the peer's own certificate (depth 0) when its only problems are in ``issuerUnknownErrors``, and
/// then checks its self-signature ourselves: OpenSSL does not verify the signature of a self-signed leaf it
/// cannot chain to a trust anchor (checked: a forged one is otherwise accepted). Rejects everything else:
/// expired or not-yet-valid certificates, bad signatures, wrong key usage, problems deeper in a chain.
///
/// The first rejection is recorded on the connection's ``SocketChannel`` so the error can say exactly what was
/// wrong. This callback is not where trust is decided: it runs on every handshake (there is no session
/// resumption), and the caller pins the peer's fingerprint after the handshake.
///
/// When a team CA trust store is added, a certificate it vouches for produces no error here at all; a
/// CA-issued certificate whose CA we do not know passes as "issuer unknown" and is judged by its pin.
///
/// The corresponding C type is `SSL_verify_cb`.
func verifyPeerCertificate(_ preverifyOK: Int32, _ store: OpaquePointer?) -> Int32 {
    guard let store else { return 0 }
    if preverifyOK == 1 { return 1 }
    let error = X509_STORE_CTX_get_error(store)
    let depth = X509_STORE_CTX_get_error_depth(store)
    let certificate = X509_STORE_CTX_get_current_cert(store)

    if depth == 0, issuerUnknownErrors.contains(error), let certificate {
        if certificateClaimsSelfIssued(certificate) && !selfSignatureVerifies(certificate) {
            record(X509_V_ERR_CERT_SIGNATURE_FAILURE, depth: depth, certificate: certificate, in: store)
            X509_STORE_CTX_set_error(store, X509_V_ERR_CERT_SIGNATURE_FAILURE)
            return 0
        }
        // Acceptable: clear the error so that SSL_get_verify_result reports success.
        X509_STORE_CTX_set_error(store, X509_V_OK)
        return 1
    }
    record(error, depth: depth, certificate: certificate, in: store)
    return 0
}

/// Whether the signature of `certificate` verifies with its own public key, leaving OpenSSL's error queue as
/// it was (the handshake's own errors must not be disturbed).
private func selfSignatureVerifies(_ certificate: OpaquePointer) -> Bool {
    guard let key = X509_get0_pubkey(certificate) else { return false }
    ERR_set_mark()
    let verified = X509_verify(certificate, key) == 1
    ERR_pop_to_mark()
    return verified
}

/// Records the first verification failure on the connection that is verifying.
private func record(_ code: Int32, depth: Int32, certificate: OpaquePointer?, in store: OpaquePointer) {
    guard let ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()),
        let data = SSL_get_ex_data(OpaquePointer(ssl), TLSConnection.channelIndex)
    else { return }
    // The channel outlives every SSL call of its connection (see SocketChannel.init).
    let channel = Unmanaged<SocketChannel>.fromOpaque(data).takeUnretainedValue()
    guard channel.verificationFailure == nil else { return }
    channel.verificationFailure = VerificationFailure(
        code: code, depth: depth,
        notBefore: certificate.flatMap { date(X509_get0_notBefore($0)) },
        notAfter: certificate.flatMap { date(X509_get0_notAfter($0)) })
}
