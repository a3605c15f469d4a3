// ShareTLS: X.509 certificates (the node's own, and the ones peers present).

internal import CShareOpenSSL
internal import Foundation

/// Owns one OpenSSL `X509`.
///
/// `@unchecked Sendable`: never modified after init (self-signed issuance finishes before the object is
/// handed out), and OpenSSL allows concurrent read-only use of an `X509`.
final class Certificate: @unchecked Sendable {
    /// The `X509`, owned by this object.
    let pointer: OpaquePointer

    /// Takes ownership of `pointer`.
    private init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// Shares `pointer` (takes a new reference; the caller keeps its own).
    ///
    /// The corresponding C function is `X509_up_ref`.
    convenience init?(sharing pointer: OpaquePointer) {
        guard openssl.X509_up_ref(pointer) == 1 else { return nil }
        self.init(taking: pointer)
    }

    deinit {
        openssl.X509_free(pointer)
    }

    /// The common name given to every node's self-signed certificate. It carries no identity: peers are
    /// identified by the fingerprint of their key.
    static let selfSignedCommonName = "share node"

    /// Parses a PEM certificate read from `path`.
    ///
    /// - Throws: ``IdentityError/invalidCertificate(path:detail:)`` naming `path`.
    static func parse(pem: [UInt8], path: String) throws(IdentityError) -> Certificate {
        if pem.isEmpty {
            throw .invalidCertificate(path: path, detail: "the file is empty")
        }
        OpenSSLErrorQueue.clear()
        let parsed = MemoryBIO.reading(pem) { bio -> OpaquePointer? in
            guard let bio else { return nil }
            return openssl.PEM_read_bio_X509(bio, nil, { _, _, _, _ in -1 }, nil)
        }
        guard let parsed else {
            let reasons = OpenSSLErrorQueue.drainTexts(fallback: "no PEM certificate found")
            throw .invalidCertificate(path: path, detail: reasons.joined(separator: "; "))
        }
        return Certificate(taking: parsed)
    }

    /// Parses every PEM certificate in `pem` (read from `path`), in order: a certificate followed by its
    /// chain, as `identity.crt` holds a CA-issued one.
    ///
    /// - Throws: ``IdentityError/invalidCertificate(path:detail:)`` naming `path` if there is no certificate or
    ///   one of them is damaged.
    static func parseAll(pem: [UInt8], path: String) throws(IdentityError) -> [Certificate] {
        switch readAll(pem: pem) {
        case .success(let certificates): return certificates
        case .failure(let problem): throw .invalidCertificate(path: path, detail: problem.detail)
        }
    }

    /// Why PEM text did not give certificates.
    struct PEMProblem: Error {
        /// What was wrong, for a message.
        var detail: String
    }

    /// Every PEM certificate in `pem`, in order; a failure if there is none or one is damaged.
    ///
    /// Other PEM blocks (a key, a request) are skipped by OpenSSL, so callers that care look for them first.
    /// The corresponding C function is `PEM_read_bio_X509`.
    static func readAll(pem: [UInt8]) -> Result<[Certificate], PEMProblem> {
        if pem.isEmpty { return .failure(PEMProblem(detail: "the file is empty")) }
        OpenSSLErrorQueue.clear()
        var certificates: [Certificate] = []
        var failure: [OpenSSLErrorEntry] = []
        MemoryBIO.reading(pem) { bio in
            guard let bio else { return }
            while true {
                guard let parsed = openssl.PEM_read_bio_X509(bio, nil, { _, _, _, _ in -1 }, nil) else {
                    let entries = OpenSSLErrorQueue.drain()
                    // The end of the text: "no start line" after at least one certificate.
                    let atEnd = entries.last.map { $0.library == ERR_LIB_PEM && $0.reason == PEM_R_NO_START_LINE }
                    if atEnd != true || certificates.isEmpty { failure = entries }
                    return
                }
                certificates.append(Certificate(taking: parsed))
                if certificates.count > 16 { return }
            }
        }
        if certificates.count > 16 {
            return .failure(PEMProblem(detail: "it holds more than 16 certificates"))
        }
        if !failure.isEmpty || certificates.isEmpty {
            let texts = failure.map(\.text)
            return .failure(
                PEMProblem(detail: texts.isEmpty ? "no PEM certificate found" : texts.joined(separator: "; ")))
        }
        return .success(certificates)
    }

    /// Issues a self-signed X.509 v3 certificate for `key`.
    ///
    /// Subject and issuer are CN "share node"; the serial number is 128 random bits; extensions are
    /// basicConstraints CA:FALSE (critical), keyUsage digitalSignature (critical), extKeyUsage
    /// serverAuth + clientAuth, and a subjectKeyIdentifier. Signed with Ed25519 (no separate digest).
    /// - Parameters:
    ///   - key: the key the certificate is for, which also signs it.
    ///   - issuerKey: the key that signs; `key` unless a test wants a bad self-signature.
    ///
    /// The corresponding C functions are `X509_new`, `X509_set_pubkey`, `X509V3_EXT_conf_nid` and `X509_sign`.
    static func selfSigned(
        for key: PrivateKey, notBefore: Date, notAfter: Date, signedBy issuerKey: PrivateKey? = nil
    ) throws(IdentityError) -> Certificate {
        OpenSSLErrorQueue.clear()
        guard let x509 = openssl.X509_new() else {
            throw openSSLFailure("creating a certificate", "X509_new failed")
        }
        let certificate = Certificate(taking: x509)
        guard openssl.X509_set_version(x509, Int(X509_VERSION_3)) == 1 else {
            throw openSSLFailure("setting the certificate version", "X509_set_version failed")
        }

        // Serial: 128 random bits, never zero. BN values are unsigned, so the DER INTEGER is positive.
        var serialBytes = SecureRandom.bytes(16)
        while serialBytes.allSatisfy({ $0 == 0 }) { serialBytes = SecureRandom.bytes(16) }
        guard let serial = openssl.BN_bin2bn(serialBytes, Int32(serialBytes.count), nil) else {
            throw openSSLFailure("making a serial number", "BN_bin2bn failed")
        }
        defer { openssl.BN_free(serial) }
        guard openssl.BN_to_ASN1_INTEGER(serial, openssl.X509_get_serialNumber(x509)) != nil else {
            throw openSSLFailure("setting the serial number", "BN_to_ASN1_INTEGER failed")
        }

        guard
            openssl.ASN1_TIME_set(
                openssl.X509_getm_notBefore(x509), time_t(notBefore.timeIntervalSince1970.rounded(.down))) != nil,
            openssl.ASN1_TIME_set(
                openssl.X509_getm_notAfter(x509), time_t(notAfter.timeIntervalSince1970.rounded(.down))) != nil
        else {
            throw openSSLFailure("setting the validity period", "ASN1_TIME_set failed")
        }

        let commonName = Array(selfSignedCommonName.utf8)
        guard let name = openssl.X509_get_subject_name(x509),
            openssl.X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, Int32(commonName.count), -1, 0)
                == 1,
            openssl.X509_set_issuer_name(x509, name) == 1
        else {
            throw openSSLFailure("setting the certificate name", "X509_NAME_add_entry_by_txt failed")
        }
        guard openssl.X509_set_pubkey(x509, key.pointer) == 1 else {
            throw openSSLFailure("setting the certificate's public key", "X509_set_pubkey failed")
        }

        var extensionContext = X509V3_CTX()
        openssl.X509V3_set_ctx(&extensionContext, x509, x509, nil, nil, 0)
        let extensions: [(Int32, String)] = [
            (NID_basic_constraints, "critical,CA:FALSE"),
            (NID_key_usage, "critical,digitalSignature"),
            (NID_ext_key_usage, "serverAuth,clientAuth"),
            (NID_subject_key_identifier, "hash"),
        ]
        for (nid, value) in extensions {
            guard let ext = openssl.X509V3_EXT_conf_nid(nil, &extensionContext, nid, value) else {
                throw openSSLFailure("adding the certificate extension \(value)", "X509V3_EXT_conf_nid failed")
            }
            defer { openssl.X509_EXTENSION_free(ext) }
            guard openssl.X509_add_ext(x509, ext, -1) == 1 else {
                throw openSSLFailure("adding the certificate extension \(value)", "X509_add_ext failed")
            }
        }

        // Ed25519 signs the whole message itself: the digest argument must be NULL.
        guard openssl.X509_sign(x509, (issuerKey ?? key).pointer, nil) > 0 else {
            throw openSSLFailure("signing the certificate", "X509_sign failed")
        }
        return certificate
    }

    /// The certificate in PEM form (`BEGIN CERTIFICATE`).
    var pem: String {
        guard let bio = MemoryBIO(), openssl.PEM_write_bio_X509(bio.pointer, pointer) == 1 else {
            _ = OpenSSLErrorQueue.drain()
            return ""
        }
        return String(decoding: bio.bytes(), as: UTF8.self)
    }

    /// The start of the validity period, or `nil` if the certificate's time field is malformed.
    var notBefore: Date? { date(openssl.X509_get0_notBefore(pointer)) }

    /// The end of the validity period, or `nil` if the certificate's time field is malformed.
    var notAfter: Date? { date(openssl.X509_get0_notAfter(pointer)) }

    /// The fingerprint of the certificate's public key (which is the node's identity).
    var publicKeyFingerprint: Fingerprint? {
        guard let key = openssl.X509_get0_pubkey(pointer) else {
            _ = OpenSSLErrorQueue.drain()
            return nil
        }
        return ShareTLS.publicKeyFingerprint(key)
    }

    /// Whether the certificate carries the public half of `key`.
    ///
    /// The corresponding C function is `X509_check_private_key`.
    func belongs(to key: PrivateKey) -> Bool {
        let matches = openssl.X509_check_private_key(pointer, key.pointer) == 1
        _ = OpenSSLErrorQueue.drain()
        return matches
    }

    /// Whether the certificate names itself as its issuer and its signature verifies with its own key.
    ///
    /// The corresponding C functions are `X509_NAME_cmp` and `X509_verify`.
    var isSelfSigned: Bool {
        certificateIsSelfSigned(pointer)
    }

    /// The subject's distinguished name in RFC 2253 form (`CN=Team CA,O=Example`), UTF-8 kept.
    var subjectName: String { distinguishedName(openssl.X509_get_subject_name(pointer)) }

    /// The issuer's distinguished name in RFC 2253 form.
    var issuerName: String { distinguishedName(openssl.X509_get_issuer_name(pointer)) }

    /// The first common name (CN) of the subject, if it has one.
    ///
    /// The corresponding C functions are `X509_NAME_get_index_by_NID` and `ASN1_STRING_to_UTF8`.
    var commonName: String? {
        guard let name = openssl.X509_get_subject_name(pointer) else { return nil }
        let index = openssl.X509_NAME_get_index_by_NID(name, NID_commonName, -1)
        guard index >= 0, let entry = openssl.X509_NAME_get_entry(name, index),
            let data = openssl.X509_NAME_ENTRY_get_data(entry)
        else { return nil }
        var utf8: UnsafeMutablePointer<UInt8>? = nil
        let length = openssl.ASN1_STRING_to_UTF8(&utf8, data)
        guard length >= 0, let utf8 else {
            _ = OpenSSLErrorQueue.drain()
            return nil
        }
        defer { openssl.CRYPTO_free(utf8, #fileID, #line) }
        return String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self)
    }

    /// SHA-256 of the DER certificate (what `openssl x509 -fingerprint -sha256` prints): names a CA certificate.
    ///
    /// The corresponding C function is `i2d_X509`.
    var certificateSHA256: Fingerprint? {
        derSHA256 { openssl.i2d_X509(pointer, $0) }
    }

    /// Whether the certificate is a CA that may sign certificates: basicConstraints CA:TRUE, and keyCertSign
    /// if it has a keyUsage extension.
    ///
    /// The corresponding C functions are `X509_check_ca` and `X509_get_extension_flags`.
    var isCertificateAuthority: Bool {
        _ = openssl.ERR_set_mark()
        defer { _ = openssl.ERR_pop_to_mark() }
        return openssl.X509_check_ca(pointer) == 1 && hasCABasicConstraints
    }

    /// Whether the certificate has a basicConstraints extension saying CA:TRUE (whatever its key usage).
    var hasCABasicConstraints: Bool {
        _ = openssl.ERR_set_mark()
        defer { _ = openssl.ERR_pop_to_mark() }
        let flags = openssl.X509_get_extension_flags(pointer)
        return flags & UInt32(EXFLAG_BCONS) != 0 && flags & UInt32(EXFLAG_CA) != 0
    }

    /// Why this certificate cannot be a share node's (a TLS server and client with an Ed25519-capable key
    /// usage), or `nil` if it can.
    ///
    /// The corresponding C function is `X509_check_purpose`.
    var problemAsNodeCertificate: String? {
        _ = openssl.ERR_set_mark()
        defer { _ = openssl.ERR_pop_to_mark() }
        if isCertificateAuthority {
            return "it is a CA certificate (basicConstraints CA:TRUE), not a node's"
        }
        if openssl.X509_check_purpose(pointer, X509_PURPOSE_SSL_SERVER, 0) != 1 {
            return "its key usage or extended key usage does not allow TLS servers (serverAuth, digitalSignature)"
        }
        if openssl.X509_check_purpose(pointer, X509_PURPOSE_SSL_CLIENT, 0) != 1 {
            return "its key usage or extended key usage does not allow TLS clients (clientAuth, digitalSignature)"
        }
        return nil
    }

    /// Whether `self` issued `subject`: names and key identifiers match and `subject`'s signature verifies
    /// with this certificate's key.
    ///
    /// The corresponding C functions are `X509_check_issued` and `X509_verify`.
    func issued(_ subject: Certificate) -> Bool {
        _ = openssl.ERR_set_mark()
        defer { _ = openssl.ERR_pop_to_mark() }
        guard openssl.X509_check_issued(pointer, subject.pointer) == X509_V_OK,
            let key = openssl.X509_get0_pubkey(pointer)
        else {
            return false
        }
        return openssl.X509_verify(subject.pointer, key) == 1
    }

    private static func openSSLFailure(_ operation: String, _ fallback: String) -> IdentityError {
        .openSSL(operation: operation, reasons: OpenSSLErrorQueue.drainTexts(fallback: fallback))
    }
}

/// Whether `x509` names itself as issuer and its signature verifies with its own public key.
func certificateIsSelfSigned(_ x509: OpaquePointer) -> Bool {
    guard let subject = openssl.X509_get_subject_name(x509), let issuer = openssl.X509_get_issuer_name(x509),
        openssl.X509_NAME_cmp(subject, issuer) == 0, let key = openssl.X509_get0_pubkey(x509)
    else { return false }
    let verified = openssl.X509_verify(x509, key) == 1
    _ = OpenSSLErrorQueue.drain()
    return verified
}

/// Whether `x509` names itself as its issuer (whatever its signature).
func certificateClaimsSelfIssued(_ x509: OpaquePointer) -> Bool {
    guard let subject = openssl.X509_get_subject_name(x509), let issuer = openssl.X509_get_issuer_name(x509) else {
        return false
    }
    return openssl.X509_NAME_cmp(subject, issuer) == 0
}

/// `name` in RFC 2253 form with UTF-8 kept (`CN=Team CA,O=Example`); empty if OpenSSL cannot print it.
///
/// The corresponding C function is `X509_NAME_print_ex`.
func distinguishedName(_ name: OpaquePointer?) -> String {
    guard let name, let bio = MemoryBIO() else { return "" }
    _ = openssl.ERR_set_mark()
    defer { _ = openssl.ERR_pop_to_mark() }
    guard openssl.X509_NAME_print_ex(bio.pointer, name, 0, CShareOpenSSL_XN_FLAG_RFC2253_UTF8()) >= 0 else { return "" }
    return String(decoding: bio.bytes(), as: UTF8.self)
}

/// Converts an ASN.1 time to a `Date`, or `nil` if it is malformed.
func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
    guard let time else { return nil }
    var parts = tm()
    // Leave the error queue as it was: this also runs inside the verification callback.
    _ = openssl.ERR_set_mark()
    defer { _ = openssl.ERR_pop_to_mark() }
    guard openssl.ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
    let seconds = timegm(&parts)
    return Date(timeIntervalSince1970: TimeInterval(seconds))
}
