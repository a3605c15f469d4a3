// ShareTLS: asking a team CA for a certificate, and installing the one it issues.

internal import CShareOpenSSL
public import Foundation

extension Identity {
    /// The longest common name a certificate may carry (RFC 5280 `ub-common-name`), in characters.
    static let maximumSubjectNameLength = 64

    /// A PKCS#10 certificate signing request for this node's key, in PEM form
    /// (`-----BEGIN CERTIFICATE REQUEST-----`).
    ///
    /// The request carries the node's Ed25519 public key and the common name `subjectName`, and is signed with
    /// the node's key (which proves the requester holds it). A team CA signs it (`share-team-ca
    /// issue`) and the node installs the result with ``importCertificate(pem:chain:in:source:)``: the fingerprint does
    /// not change. The name is informational; the CA decides the extensions.
    ///
    /// - Parameter subjectName: the certificate's common name, e.g. the device name (1 to 64 characters, no
    ///   control characters).
    /// - Throws: ``IdentityError/invalidSubjectName(name:reason:)``, or ``IdentityError/openSSL(operation:reasons:)``.
    /// The corresponding C functions are `X509_REQ_new`, `X509_REQ_set_pubkey`, `X509_REQ_sign` and
    /// `PEM_write_bio_X509_REQ`.
    public func certificateSigningRequest(subjectName: String) throws(IdentityError) -> String {
        if subjectName.isEmpty {
            throw .invalidSubjectName(name: subjectName, reason: "it is empty")
        }
        if subjectName.count > Identity.maximumSubjectNameLength {
            throw .invalidSubjectName(
                name: subjectName, reason: "it is longer than \(Identity.maximumSubjectNameLength) characters")
        }
        if subjectName.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw .invalidSubjectName(name: subjectName, reason: "it contains control characters")
        }
        OpenSSLErrorQueue.clear()
        guard let request = openssl.X509_REQ_new() else {
            throw Identity.openSSLFailure("creating a certificate request", "X509_REQ_new failed")
        }
        defer { openssl.X509_REQ_free(request) }
        let name = Array(subjectName.utf8)
        guard openssl.X509_REQ_set_version(request, 0) == 1,  // version 1, the only one defined
            let subject = openssl.X509_REQ_get_subject_name(request),
            openssl.X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_UTF8, name, Int32(name.count), -1, 0) == 1
        else {
            throw Identity.openSSLFailure("setting the request's name", "X509_NAME_add_entry_by_txt failed")
        }
        guard openssl.X509_REQ_set_pubkey(request, key.pointer) == 1 else {
            throw Identity.openSSLFailure("setting the request's public key", "X509_REQ_set_pubkey failed")
        }
        // Ed25519 signs the whole message itself: the digest argument must be NULL.
        guard openssl.X509_REQ_sign(request, key.pointer, nil) > 0 else {
            throw Identity.openSSLFailure("signing the certificate request", "X509_REQ_sign failed")
        }
        guard let bio = MemoryBIO(), openssl.PEM_write_bio_X509_REQ(bio.pointer, request) == 1 else {
            throw Identity.openSSLFailure("encoding the certificate request", "PEM_write_bio_X509_REQ failed")
        }
        return String(decoding: bio.bytes(), as: UTF8.self)
    }

    /// Installs a certificate that a team CA issued for this node's key, and returns the identity with it.
    ///
    /// The certificate must be for the key already in `directory` (so the fingerprint does not change), valid
    /// now, and fit for a share node (not a CA; key usages allowing TLS servers and clients). The chain, if
    /// given, must start with the certificate's issuer. `identity.crt` is then replaced atomically by the
    /// certificate followed by its chain; the key is untouched. A CA-issued certificate is never renewed
    /// automatically: when it nears expiry, ask the CA for a new one.
    ///
    /// - Parameters:
    ///   - pem: the certificate (PEM). If it holds several certificates, the first is the node's and the
    ///     others are taken as its chain.
    ///   - chain: the CA certificates to present after it (PEM, each string may hold several), nearest issuer
    ///     first; usually not needed, since peers that trust the team CA have its certificate.
    ///   - directory: the identity folder (the config folder).
    ///   - source: how messages name the certificate, e.g. "The certificate in node.pem".
    /// - Throws: ``IdentityError``: e.g.
    ///   ``IdentityError/certificateForAnotherKey(source:certificateKey:identityKey:)``.
    /// > Warning: blocking file I/O with `fsync`.
    public static func importCertificate(
        pem: String, chain: [String]?, in directory: String, source: String = "The certificate"
    ) throws(IdentityError) -> Identity {
        try importCertificate(pem: pem, chain: chain, in: directory, source: source, now: Date())
    }

    /// ``importCertificate(pem:chain:in:source:)`` at a given time.
    static func importCertificate(
        pem: String, chain: [String]?, in directory: String, source: String, now: Date
    ) throws(IdentityError) -> Identity {
        let folder = IdentityDirectory(path: directory)
        guard var keyPEM = try folder.read(folder.keyPath, restrictToOwner: true) else {
            throw .noIdentity(keyPath: folder.keyPath)
        }
        defer { wipe(&keyPEM) }
        let key = try PrivateKey.parse(pem: keyPEM, path: folder.keyPath)

        var certificates: [Certificate]
        switch Certificate.readAll(pem: Array(pem.utf8)) {
        case .success(let parsed): certificates = parsed
        case .failure(let problem): throw .notACertificate(source: source, detail: problem.detail)
        }
        for text in chain ?? [] {
            switch Certificate.readAll(pem: Array(text.utf8)) {
            case .success(let parsed): certificates += parsed
            case .failure(let problem): throw .notACertificate(source: "The chain", detail: problem.detail)
            }
        }
        let certificate = certificates[0]
        let issuers = Array(certificates.dropFirst())

        guard let identityKey = key.fingerprint, let certificateKey = certificate.publicKeyFingerprint else {
            throw .openSSL(operation: "encoding a public key", reasons: ["i2d_PUBKEY failed"])
        }
        guard certificateKey == identityKey, certificate.belongs(to: key) else {
            throw .certificateForAnotherKey(source: source, certificateKey: certificateKey, identityKey: identityKey)
        }
        if let reason = certificate.problemAsNodeCertificate {
            throw .certificateUnusable(source: source, reason: reason)
        }
        guard let notBefore = certificate.notBefore, let notAfter = certificate.notAfter else {
            throw .notACertificate(source: source, detail: "its validity dates cannot be read")
        }
        if notAfter <= now { throw .certificateExpired(source: source, notAfter: notAfter) }
        if notBefore > now { throw .certificateNotYetValid(source: source, notBefore: notBefore) }
        var subject = certificate
        for issuer in issuers {
            guard issuer.issued(subject) else {
                throw .chainDoesNotMatch(
                    source: "given",
                    detail: "\(issuer.subjectName) did not issue \(subject.subjectName)")
            }
            subject = issuer
        }

        let identity = try Identity(
            key: key, certificate: certificate, chain: issuers, certificatePath: folder.certificatePath,
            keyPath: folder.keyPath)
        let text = ([identity.certificatePEM] + issuers.map(\.pem)).joined()
        let bytes = Array(text.utf8)
        _ = try bytes.withUnsafeBytes { buffer in
            Result { () throws(IdentityError) in
                try folder.write(
                    buffer, to: folder.certificatePath, mode: IdentityDirectory.certificateMode, replacing: true)
            }
        }.get()
        return identity
    }

    private static func openSSLFailure(_ operation: String, _ fallback: String) -> IdentityError {
        .openSSL(operation: operation, reasons: OpenSSLErrorQueue.drainTexts(fallback: fallback))
    }
}

// MARK: - For tests (package access)

extension Identity {
    /// An identity in memory from PEM text: a PKCS#8 key and a certificate followed by its chain (nothing is
    /// written; the certificate is taken as it is, even expired).
    package static func fromPEM(key keyPEM: String, certificates certificatesPEM: String) throws(IdentityError)
        -> Identity
    {
        let key = try PrivateKey.parse(pem: Array(keyPEM.utf8), path: "<memory>")
        let certificates = try Certificate.parseAll(pem: Array(certificatesPEM.utf8), path: "<memory>")
        return try Identity(
            key: key, certificate: certificates[0], chain: Array(certificates.dropFirst()), certificatePath: "<memory>",
            keyPath: "<memory>")
    }
}
