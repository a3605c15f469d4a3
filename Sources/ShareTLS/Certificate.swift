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
        guard X509_up_ref(pointer) == 1 else { return nil }
        self.init(taking: pointer)
    }

    deinit {
        X509_free(pointer)
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
            return PEM_read_bio_X509(bio, nil, { _, _, _, _ in -1 }, nil)
        }
        guard let parsed else {
            let reasons = OpenSSLErrorQueue.drainTexts(fallback: "no PEM certificate found")
            throw .invalidCertificate(path: path, detail: reasons.joined(separator: "; "))
        }
        return Certificate(taking: parsed)
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
        guard let x509 = X509_new() else {
            throw openSSLFailure("creating a certificate", "X509_new failed")
        }
        let certificate = Certificate(taking: x509)
        guard X509_set_version(x509, Int(X509_VERSION_3)) == 1 else {
            throw openSSLFailure("setting the certificate version", "X509_set_version failed")
        }

        // Serial: 128 random bits, never zero. BN values are unsigned, so the DER INTEGER is positive.
        var serialBytes = SecureRandom.bytes(16)
        while serialBytes.allSatisfy({ $0 == 0 }) { serialBytes = SecureRandom.bytes(16) }
        guard let serial = BN_bin2bn(serialBytes, Int32(serialBytes.count), nil) else {
            throw openSSLFailure("making a serial number", "BN_bin2bn failed")
        }
        defer { BN_free(serial) }
        guard BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(x509)) != nil else {
            throw openSSLFailure("setting the serial number", "BN_to_ASN1_INTEGER failed")
        }

        guard ASN1_TIME_set(X509_getm_notBefore(x509), time_t(notBefore.timeIntervalSince1970.rounded(.down))) != nil,
            ASN1_TIME_set(X509_getm_notAfter(x509), time_t(notAfter.timeIntervalSince1970.rounded(.down))) != nil
        else {
            throw openSSLFailure("setting the validity period", "ASN1_TIME_set failed")
        }

        let commonName = Array(selfSignedCommonName.utf8)
        guard let name = X509_get_subject_name(x509),
            X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, Int32(commonName.count), -1, 0) == 1,
            X509_set_issuer_name(x509, name) == 1
        else {
            throw openSSLFailure("setting the certificate name", "X509_NAME_add_entry_by_txt failed")
        }
        guard X509_set_pubkey(x509, key.pointer) == 1 else {
            throw openSSLFailure("setting the certificate's public key", "X509_set_pubkey failed")
        }

        var extensionContext = X509V3_CTX()
        X509V3_set_ctx(&extensionContext, x509, x509, nil, nil, 0)
        let extensions: [(Int32, String)] = [
            (NID_basic_constraints, "critical,CA:FALSE"),
            (NID_key_usage, "critical,digitalSignature"),
            (NID_ext_key_usage, "serverAuth,clientAuth"),
            (NID_subject_key_identifier, "hash"),
        ]
        for (nid, value) in extensions {
            guard let ext = X509V3_EXT_conf_nid(nil, &extensionContext, nid, value) else {
                throw openSSLFailure("adding the certificate extension \(value)", "X509V3_EXT_conf_nid failed")
            }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(x509, ext, -1) == 1 else {
                throw openSSLFailure("adding the certificate extension \(value)", "X509_add_ext failed")
            }
        }

        // Ed25519 signs the whole message itself: the digest argument must be NULL.
        guard X509_sign(x509, (issuerKey ?? key).pointer, nil) > 0 else {
            throw openSSLFailure("signing the certificate", "X509_sign failed")
        }
        return certificate
    }

    /// The certificate in PEM form (`BEGIN CERTIFICATE`).
    var pem: String {
        guard let bio = MemoryBIO(), PEM_write_bio_X509(bio.pointer, pointer) == 1 else {
            _ = OpenSSLErrorQueue.drain()
            return ""
        }
        return String(decoding: bio.bytes(), as: UTF8.self)
    }

    /// The start of the validity period, or `nil` if the certificate's time field is malformed.
    var notBefore: Date? { date(X509_get0_notBefore(pointer)) }

    /// The end of the validity period, or `nil` if the certificate's time field is malformed.
    var notAfter: Date? { date(X509_get0_notAfter(pointer)) }

    /// The fingerprint of the certificate's public key (which is the node's identity).
    var publicKeyFingerprint: Fingerprint? {
        guard let key = X509_get0_pubkey(pointer) else {
            _ = OpenSSLErrorQueue.drain()
            return nil
        }
        return ShareTLS.publicKeyFingerprint(key)
    }

    /// Whether the certificate carries the public half of `key`.
    ///
    /// The corresponding C function is `X509_check_private_key`.
    func belongs(to key: PrivateKey) -> Bool {
        let matches = X509_check_private_key(pointer, key.pointer) == 1
        _ = OpenSSLErrorQueue.drain()
        return matches
    }

    /// Whether the certificate names itself as its issuer and its signature verifies with its own key.
    ///
    /// The corresponding C functions are `X509_NAME_cmp` and `X509_verify`.
    var isSelfSigned: Bool {
        certificateIsSelfSigned(pointer)
    }

    private static func openSSLFailure(_ operation: String, _ fallback: String) -> IdentityError {
        .openSSL(operation: operation, reasons: OpenSSLErrorQueue.drainTexts(fallback: fallback))
    }
}

/// Whether `x509` names itself as issuer and its signature verifies with its own public key.
func certificateIsSelfSigned(_ x509: OpaquePointer) -> Bool {
    guard let subject = X509_get_subject_name(x509), let issuer = X509_get_issuer_name(x509),
        X509_NAME_cmp(subject, issuer) == 0, let key = X509_get0_pubkey(x509)
    else { return false }
    let verified = X509_verify(x509, key) == 1
    _ = OpenSSLErrorQueue.drain()
    return verified
}

/// Whether `x509` names itself as its issuer (whatever its signature).
func certificateClaimsSelfIssued(_ x509: OpaquePointer) -> Bool {
    guard let subject = X509_get_subject_name(x509), let issuer = X509_get_issuer_name(x509) else { return false }
    return X509_NAME_cmp(subject, issuer) == 0
}

/// Converts an ASN.1 time to a `Date`, or `nil` if it is malformed.
func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
    guard let time else { return nil }
    var parts = tm()
    // Leave the error queue as it was: this also runs inside the verification callback.
    ERR_set_mark()
    defer { ERR_pop_to_mark() }
    guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
    let seconds = timegm(&parts)
    return Date(timeIntervalSince1970: TimeInterval(seconds))
}
