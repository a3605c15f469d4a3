// ShareTLS: the node's long-term identity (key + certificate).

public import Foundation

/// The long-term identity of this node: an Ed25519 private key and a certificate for it.
///
/// The identity *is* the key: peers pin ``fingerprint``, the SHA-256 of the public key, so the certificate
/// can be renewed, or replaced by one a team CA issued for the same key (``importCertificate(pem:chain:in:source:)``),
/// without changing who this node is.
///
/// `@unchecked Sendable`: every stored property is a `let`, the wrapped OpenSSL key and certificate are never
/// modified after init, and OpenSSL allows concurrent read-only use of both (each TLS context takes its own
/// reference), so an identity can be shared by every connection on every thread.
public final class Identity: @unchecked Sendable {
    /// The private key.
    let key: PrivateKey

    /// The certificate presented in TLS handshakes.
    let certificate: Certificate

    /// The CA certificates presented after it (a CA-issued certificate's chain), nearest issuer first; empty
    /// for a self-signed certificate.
    let chain: [Certificate]

    /// This node's identity: SHA-256 of the DER SubjectPublicKeyInfo of its key.
    public let fingerprint: Fingerprint

    /// The certificate in PEM form (`-----BEGIN CERTIFICATE-----`).
    public let certificatePEM: String

    /// The start of the certificate's validity period.
    public let notBefore: Date

    /// The end of the certificate's validity period.
    public let notAfter: Date

    /// The certificate's issuer (RFC 2253, e.g. `CN=Acme Team CA`); for a self-signed certificate, its own
    /// subject (`CN=share node`).
    public var certificateIssuer: String { certificate.issuerName }

    /// Whether the certificate is self-signed with a valid signature (share made it), rather than issued by a
    /// team CA.
    public var certificateIsSelfSigned: Bool { certificate.isSelfSigned }

    /// A self-signed certificate is valid from one day before it is made (peers with a slow clock)…
    static let backdating: TimeInterval = 24 * 60 * 60

    /// … for twenty years (7,305 days) …
    static let lifetime: TimeInterval = 7_305 * 24 * 60 * 60

    /// … and is renewed, for the same key, when it has less than 30 days left.
    static let renewalWindow: TimeInterval = 30 * 24 * 60 * 60

    /// Pairs a key and a certificate.
    ///
    /// - Parameter certificatePath: where the certificate came from, for error messages.
    /// - Throws: if the certificate is for another key or its validity dates cannot be read.
    init(
        key: PrivateKey, certificate: Certificate, chain: [Certificate] = [], certificatePath: String, keyPath: String
    ) throws(IdentityError) {
        guard certificate.belongs(to: key) else {
            throw .certificateDoesNotMatchKey(certificatePath: certificatePath, keyPath: keyPath)
        }
        guard let fingerprint = key.fingerprint else {
            throw .openSSL(operation: "encoding the public key", reasons: ["i2d_PUBKEY failed"])
        }
        guard let notBefore = certificate.notBefore, let notAfter = certificate.notAfter else {
            throw .invalidCertificate(path: certificatePath, detail: "its validity dates cannot be read")
        }
        let pem = certificate.pem
        guard !pem.isEmpty else {
            throw .openSSL(operation: "encoding the certificate as PEM", reasons: ["PEM_write_bio_X509 failed"])
        }
        self.key = key
        self.certificate = certificate
        self.chain = chain
        self.fingerprint = fingerprint
        self.certificatePEM = pem
        self.notBefore = notBefore
        self.notAfter = notAfter
    }

    /// Loads this node's identity from `directory`, creating it on first use.
    ///
    /// - If `identity.key` and `identity.crt` exist, they are loaded (PEM; the key is PKCS#8). `identity.crt`
    ///   holds the certificate, followed by its chain when a team CA issued it.
    /// - Otherwise the folder is created (mode 0700) and a new Ed25519 key (`identity.key`, mode 0600) and a
    ///   self-signed certificate (`identity.crt`, mode 0644, valid 20 years) are generated and written
    ///   atomically.
    /// - If the key exists but the certificate is missing, expires within 30 days, has expired, or is not yet
    ///   valid, a new self-signed certificate is issued for the *same* key: the fingerprint does not change.
    /// - Two processes (or threads) creating the identity at once end up with the same one.
    ///
    /// A key is never overwritten or regenerated silently: a key file that cannot be read or parsed, or a
    /// certificate without its key, is an error that names the file and says what to do.
    ///
    /// - Parameter directory: the identity folder, e.g. `$XDG_CONFIG_HOME/share`.
    /// - Throws: ``IdentityError``.
    /// > Warning: blocking file I/O with `fsync`; call it once at startup, off the cooperative thread pool if
    /// > possible.
    public static func loadOrCreate(in directory: String) throws(IdentityError) -> Identity {
        let folder = IdentityDirectory(path: directory)
        try folder.create()
        let key = try loadOrCreateKey(in: folder)
        return try loadOrIssueCertificate(for: key, in: folder, now: Date())
    }

    /// Reads `identity.key`, or makes and stores a new key if there is none.
    private static func loadOrCreateKey(in folder: IdentityDirectory) throws(IdentityError) -> PrivateKey {
        if let key = try readKey(in: folder) { return key }

        // No key. A certificate without its key means the identity was lost: refuse to replace it silently.
        // (Another process may have just created both: its key was linked into place before its certificate
        // was written, so look for the key once more before concluding.)
        if folder.exists(folder.certificatePath) {
            if let key = try readKey(in: folder) { return key }
            throw .keyMissing(keyPath: folder.keyPath, certificatePath: folder.certificatePath)
        }

        let key = try PrivateKey.generateEd25519()
        let written = try key.withPKCS8PEM { pem throws(IdentityError) in
            try folder.write(pem, to: folder.keyPath, mode: IdentityDirectory.keyMode, replacing: false)
        }
        if written { return key }
        // Another process created the key first: use theirs, so both end up with the same identity.
        guard let theirs = try readKey(in: folder) else {
            throw .cannotRead(path: folder.keyPath, detail: "it disappeared while share was creating it")
        }
        return theirs
    }

    /// The key in `identity.key`, or `nil` if there is no such file.
    private static func readKey(in folder: IdentityDirectory) throws(IdentityError) -> PrivateKey? {
        guard var pem = try folder.read(folder.keyPath, restrictToOwner: true) else { return nil }
        defer { wipe(&pem) }
        return try PrivateKey.parse(pem: pem, path: folder.keyPath)
    }

    /// Loads `identity.crt` for `key`, issuing a new self-signed certificate if it is missing or due for
    /// renewal.
    static func loadOrIssueCertificate(
        for key: PrivateKey, in folder: IdentityDirectory, now: Date
    ) throws(IdentityError) -> Identity {
        if let pem = try folder.read(folder.certificatePath) {
            let certificates = try Certificate.parseAll(pem: pem, path: folder.certificatePath)
            let certificate = certificates[0]
            let identity = try Identity(
                key: key, certificate: certificate, chain: Array(certificates.dropFirst()),
                certificatePath: folder.certificatePath, keyPath: folder.keyPath)
            // Only our own self-signed certificates are renewed here. A certificate someone else issued for this
            // key (a team CA) is the user's to replace, so it is used as it is, even expired.
            guard identity.needsRenewal(at: now), certificate.isSelfSigned else { return identity }
            return try issueAndStore(for: key, in: folder, now: now, replacing: true)
        }
        return try issueAndStore(for: key, in: folder, now: now, replacing: false)
    }

    /// Issues a self-signed certificate for `key` and stores it as `identity.crt`.
    ///
    /// - Parameter replacing: renew an existing certificate (atomic replace), or create the file; in the latter
    ///   case, if another process created it first, its certificate is used instead.
    private static func issueAndStore(
        for key: PrivateKey, in folder: IdentityDirectory, now: Date, replacing: Bool
    ) throws(IdentityError) -> Identity {
        let certificate = try Certificate.selfSigned(
            for: key, notBefore: now - backdating, notAfter: now + lifetime)
        let identity = try Identity(
            key: key, certificate: certificate, certificatePath: folder.certificatePath, keyPath: folder.keyPath)
        let pem = Array(identity.certificatePEM.utf8)
        let written = try pem.withUnsafeBytes { bytes in
            Result { () throws(IdentityError) in
                try folder.write(
                    bytes, to: folder.certificatePath, mode: IdentityDirectory.certificateMode, replacing: replacing)
            }
        }.get()
        if written { return identity }
        // Another process stored a certificate first: use theirs (same key, so the same identity).
        guard let theirs = try folder.read(folder.certificatePath) else {
            throw .cannotRead(path: folder.certificatePath, detail: "it disappeared while share was creating it")
        }
        return try Identity(
            key: key, certificate: Certificate.parse(pem: theirs, path: folder.certificatePath),
            certificatePath: folder.certificatePath, keyPath: folder.keyPath)
    }

    /// Whether the certificate should be renewed at `now`: it expires within ``renewalWindow``, has expired,
    /// or is not valid yet (the clock was set back since it was made).
    func needsRenewal(at now: Date) -> Bool {
        notAfter < now + Identity.renewalWindow || notBefore > now
    }
}

// MARK: - For tests (package access)

extension Identity {
    /// Makes an identity in memory only (nothing is written), with a self-signed certificate valid from
    /// `notBefore` to `notAfter`: e.g. an expired or not-yet-valid one for tests.
    package static func generateEphemeral(notBefore: Date, notAfter: Date) throws(IdentityError) -> Identity {
        let key = try PrivateKey.generateEd25519()
        let certificate = try Certificate.selfSigned(for: key, notBefore: notBefore, notAfter: notAfter)
        return try Identity(key: key, certificate: certificate, certificatePath: "<memory>", keyPath: "<memory>")
    }

    /// Makes an identity in memory, valid now, whose certificate claims to be self-signed but whose signature
    /// was made by another key (a tampered certificate).
    package static func generateWithInvalidSignature() throws(IdentityError) -> Identity {
        let key = try PrivateKey.generateEd25519()
        let forger = try PrivateKey.generateEd25519()
        let now = Date()
        let certificate = try Certificate.selfSigned(
            for: key, notBefore: now - backdating, notAfter: now + lifetime, signedBy: forger)
        return try Identity(key: key, certificate: certificate, certificatePath: "<memory>", keyPath: "<memory>")
    }

    /// The same key with a new self-signed certificate valid from `notBefore` to `notAfter`.
    package func reissued(notBefore: Date, notAfter: Date) throws(IdentityError) -> Identity {
        let certificate = try Certificate.selfSigned(for: key, notBefore: notBefore, notAfter: notAfter)
        return try Identity(key: key, certificate: certificate, certificatePath: "<memory>", keyPath: "<memory>")
    }

    /// The private key as PKCS#8 PEM.
    ///
    /// > Warning: for tests only; the secret ends up in an ordinary Swift string.
    package var privateKeyPEM: String {
        (try? key.withPKCS8PEM { String(decoding: $0, as: UTF8.self) }) ?? ""
    }
}
