// ShareTLS: SHA-256 through OpenSSL's EVP interface (SHA-NI where the CPU has it).

internal import CShareOpenSSL

/// An incremental SHA-256 hash, computed by OpenSSL's EVP interface.
///
/// EVP picks the fastest implementation for the CPU (SHA-NI on this machine kind, about 1 GB/s), so hash
/// through this type and never with a hand-written loop. Creating one is cheap: the algorithm is fetched once
/// per process.
///
/// `SHA256` is a value: copying it forks the running hash (the OpenSSL context is copied on the first write
/// after a copy), so one copy can be finalized while the other keeps going.
///
/// ```swift
/// var hash = SHA256()
/// hash.update(chunk)
/// let digest = hash.finalize()   // 32 bytes
/// ```
///
/// The corresponding C functions are `EVP_DigestInit_ex`, `EVP_DigestUpdate` and `EVP_DigestFinal_ex`.
public struct SHA256: Sendable {
    /// The length of a SHA-256 digest in bytes.
    public static let digestByteCount = 32

    /// The OpenSSL context, shared between copies until one of them writes.
    private var context: SHA256Context

    /// Starts a new hash.
    public init() {
        context = SHA256Context()
    }

    /// Adds bytes to the hash.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        if !isKnownUniquelyReferenced(&context) {
            context = context.copy()
        }
        context.update(base, bytes.count)
    }

    /// Adds bytes to the hash.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Adds bytes to the hash.
    public mutating func update(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Adds the UTF-8 bytes of a string to the hash.
    public mutating func update(utf8 text: String) {
        var text = text
        text.withUTF8 { update(UnsafeRawBufferPointer($0)) }
    }

    /// The digest of what was hashed so far, leaving this hash open for more.
    public var finalizedCopy: [UInt8] {
        let copy = self
        return copy.finalize()
    }

    /// Returns the 32-byte digest of everything added so far.
    ///
    /// The value is consumed; a copy made earlier is not affected.
    public consuming func finalize() -> [UInt8] {
        if !isKnownUniquelyReferenced(&context) {
            context = context.copy()
        }
        return context.finalize()
    }

    /// The SHA-256 digest of `bytes` (32 bytes).
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var hash = SHA256()
        hash.update(bytes)
        return hash.finalize()
    }

    /// The SHA-256 digest of `bytes` (32 bytes).
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { hash($0) }
    }

    /// The SHA-256 digest of `bytes` (32 bytes).
    public static func hash(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        bytes.withUnsafeBytes { hash($0) }
    }
}

/// The SHA-256 algorithm, fetched from the default provider once per process.
///
/// `nonisolated(unsafe)`: a fetched `EVP_MD` is immutable and OpenSSL documents it as safe to share between
/// threads; the global is initialized once, lazily and thread-safely, and never written again.
nonisolated(unsafe) private let sha256Algorithm: OpaquePointer? = openssl.EVP_MD_fetch(nil, "SHA256", nil)

/// Owns one `EVP_MD_CTX`.
///
/// `@unchecked Sendable`: `SHA256` writes only to a context it references uniquely (copy-on-write, the same
/// argument that makes `Array` Sendable), and the only shared access is `EVP_MD_CTX_copy_ex` reading it.
private final class SHA256Context: @unchecked Sendable {
    /// The OpenSSL digest context, owned by this object.
    private let context: OpaquePointer

    init() {
        guard let algorithm = sha256Algorithm, let context = openssl.EVP_MD_CTX_new(),
            openssl.EVP_DigestInit_ex(context, algorithm, nil) == 1
        else {
            // Only possible if OpenSSL is out of memory or its default provider is missing: nothing to recover.
            preconditionFailure("OpenSSL could not start a SHA-256 hash (is libcrypto's default provider missing?)")
        }
        self.context = context
    }

    private init(copying other: SHA256Context) {
        guard let context = openssl.EVP_MD_CTX_new(), openssl.EVP_MD_CTX_copy_ex(context, other.context) == 1 else {
            preconditionFailure("OpenSSL could not copy a SHA-256 context (out of memory)")
        }
        self.context = context
    }

    deinit {
        openssl.EVP_MD_CTX_free(context)
    }

    func copy() -> SHA256Context {
        SHA256Context(copying: self)
    }

    func update(_ base: UnsafeRawPointer, _ count: Int) {
        guard openssl.EVP_DigestUpdate(context, base, count) == 1 else {
            preconditionFailure("EVP_DigestUpdate failed for SHA-256")
        }
    }

    /// Finishes the hash. The context must not be used afterwards (`SHA256.finalize()` is consuming).
    func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: SHA256.digestByteCount)
        var length: UInt32 = 0
        let ok = digest.withUnsafeMutableBufferPointer { openssl.EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
        guard ok == 1, length == SHA256.digestByteCount else {
            preconditionFailure("EVP_DigestFinal_ex failed for SHA-256")
        }
        return digest
    }
}
