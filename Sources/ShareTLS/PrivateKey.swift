// ShareTLS: the node's long-term private key.

internal import CShareOpenSSL

/// Owns one OpenSSL `EVP_PKEY` holding an Ed25519 private key.
///
/// `@unchecked Sendable`: the key is never modified after init, and OpenSSL 3 allows an `EVP_PKEY` to be
/// used for signing from several threads at once (each operation makes its own `EVP_PKEY_CTX`).
final class PrivateKey: @unchecked Sendable {
    /// The `EVP_PKEY`, owned by this object.
    let pointer: OpaquePointer

    /// Takes ownership of `pointer`.
    private init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        openssl.EVP_PKEY_free(pointer)
    }

    /// Generates a new Ed25519 key.
    ///
    /// The corresponding C functions are `EVP_PKEY_CTX_new_from_name`, `EVP_PKEY_keygen_init` and
    /// `EVP_PKEY_generate`.
    static func generateEd25519() throws(IdentityError) -> PrivateKey {
        OpenSSLErrorQueue.clear()
        guard let context = openssl.EVP_PKEY_CTX_new_from_name(nil, "ED25519", nil) else {
            throw .openSSL(
                operation: "creating an Ed25519 key generator",
                reasons: OpenSSLErrorQueue.drainTexts(
                    fallback: "EVP_PKEY_CTX_new_from_name failed"))
        }
        defer { openssl.EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer? = nil
        guard openssl.EVP_PKEY_keygen_init(context) == 1, openssl.EVP_PKEY_generate(context, &key) == 1, let key else {
            throw .openSSL(
                operation: "generating an Ed25519 key",
                reasons: OpenSSLErrorQueue.drainTexts(
                    fallback: "EVP_PKEY_generate failed"))
        }
        return PrivateKey(taking: key)
    }

    /// Parses a PEM private key (PKCS#8 `BEGIN PRIVATE KEY`, or OpenSSL's older formats) read from `path`.
    ///
    /// Encrypted keys are refused (no passphrase prompt ever appears). Only Ed25519 keys are accepted.
    /// - Throws: ``IdentityError/invalidKey(path:detail:)``, ``IdentityError/encryptedKey(path:)`` or
    ///   ``IdentityError/unsupportedKeyType(path:type:)``, naming `path`.
    static func parse(pem: [UInt8], path: String) throws(IdentityError) -> PrivateKey {
        if pem.isEmpty {
            throw .invalidKey(path: path, detail: "the file is empty")
        }
        OpenSSLErrorQueue.clear()
        let parsed = MemoryBIO.reading(pem) { bio -> OpaquePointer? in
            guard let bio else { return nil }
            // A password callback that always refuses: never prompt on the terminal for an encrypted key.
            return openssl.PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in -1 }, nil)
        }
        guard let parsed else {
            let reasons = OpenSSLErrorQueue.drainTexts(fallback: "no PEM private key found")
            if containsASCII(pem, "ENCRYPTED") {
                throw .encryptedKey(path: path)
            }
            throw .invalidKey(path: path, detail: reasons.joined(separator: "; "))
        }
        let key = PrivateKey(taking: parsed)
        guard openssl.EVP_PKEY_is_a(parsed, "ED25519") == 1 else {
            let type = openssl.EVP_PKEY_get0_type_name(parsed).map { String(cString: $0) } ?? "unknown"
            throw .unsupportedKeyType(path: path, type: type)
        }
        return key
    }

    /// The key as PKCS#8 PEM (`BEGIN PRIVATE KEY`), unencrypted, handed to `body` from OpenSSL secure
    /// memory that is wiped afterwards.
    ///
    /// The corresponding C function is `PEM_write_bio_PKCS8PrivateKey`.
    func withPKCS8PEM<R>(_ body: (UnsafeRawBufferPointer) throws(IdentityError) -> R) throws(IdentityError) -> R {
        OpenSSLErrorQueue.clear()
        guard let bio = MemoryBIO(secure: true),
            openssl.PEM_write_bio_PKCS8PrivateKey(bio.pointer, pointer, nil, nil, 0, nil, nil) == 1
        else {
            throw .openSSL(
                operation: "encoding the private key as PEM",
                reasons: OpenSSLErrorQueue.drainTexts(
                    fallback: "PEM_write_bio_PKCS8PrivateKey failed"))
        }
        return try bio.withBytes(body)
    }

    /// The fingerprint of the public half (SHA-256 of the DER SubjectPublicKeyInfo).
    var fingerprint: Fingerprint? {
        publicKeyFingerprint(pointer)
    }
}

/// SHA-256 of the DER SubjectPublicKeyInfo of `key` (public or private `EVP_PKEY`), or `nil` if OpenSSL
/// cannot encode it.
///
/// The corresponding C function is `i2d_PUBKEY`.
func publicKeyFingerprint(_ key: OpaquePointer) -> Fingerprint? {
    derSHA256 { openssl.i2d_PUBKEY(key, $0) }
}

/// SHA-256 of what an OpenSSL `i2d_*` encoder writes: called once with no buffer for the length,
/// then to write. `nil` when OpenSSL cannot encode it.
func derSHA256(_ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32) -> Fingerprint? {
    let length = encode(nil)
    guard length > 0 else {
        _ = OpenSSLErrorQueue.drain()
        return nil
    }
    var der = [UInt8](repeating: 0, count: Int(length))
    let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
        var cursor = buffer.baseAddress
        return encode(&cursor)
    }
    guard written == length else {
        _ = OpenSSLErrorQueue.drain()
        return nil
    }
    return Fingerprint(bytes: SHA256.hash(der))
}

/// Whether the ASCII text `needle` occurs in `bytes`.
func containsASCII(_ bytes: [UInt8], _ needle: String) -> Bool {
    let pattern = Array(needle.utf8)
    guard !pattern.isEmpty, bytes.count >= pattern.count else { return false }
    for start in 0...(bytes.count - pattern.count) where bytes[start] == pattern[0] {
        if bytes[start..<(start + pattern.count)].elementsEqual(pattern) { return true }
    }
    return false
}
