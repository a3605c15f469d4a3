// ShareTLS: OpenSSL memory BIOs, to move PEM text in and out without touching files.

internal import CShareOpenSSL

/// Owns one OpenSSL memory `BIO`.
///
/// Confined to the function that made it; never stored.
final class MemoryBIO {
    /// The `BIO`, owned by this object.
    let pointer: OpaquePointer

    /// A writable memory BIO. With `secure`, the buffer is OpenSSL secure memory that is wiped on free
    /// (for private keys).
    ///
    /// The corresponding C functions are `BIO_new(BIO_s_mem())` and `BIO_new(BIO_s_secmem())`.
    init?(secure: Bool = false) {
        guard let bio = openssl.BIO_new(secure ? openssl.BIO_s_secmem() : openssl.BIO_s_mem()) else { return nil }
        pointer = bio
    }

    deinit {
        _ = openssl.BIO_free(pointer)
    }

    /// The bytes written so far.
    func bytes() -> [UInt8] {
        var data: UnsafeMutablePointer<CChar>? = nil
        let length = CShareOpenSSL_BIO_get_mem_data(openssl.BIO_ctrl, pointer, &data)
        guard let data, length > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: length))
    }

    /// Calls `body` with the bytes written so far, without copying them (for secrets).
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(IdentityError) -> R) throws(IdentityError) -> R {
        var data: UnsafeMutablePointer<CChar>? = nil
        let length = CShareOpenSSL_BIO_get_mem_data(openssl.BIO_ctrl, pointer, &data)
        guard let data, length > 0 else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeRawBufferPointer(start: data, count: length))
    }

    /// Calls `body` with a read-only memory BIO over `bytes`, valid only during the call.
    ///
    /// The corresponding C function is `BIO_new_mem_buf`.
    static func reading<R>(_ bytes: [UInt8], _ body: (OpaquePointer?) -> R) -> R {
        bytes.withUnsafeBytes { buffer -> R in
            guard let base = buffer.baseAddress, buffer.count <= Int(Int32.max) else { return body(nil) }
            let bio = openssl.BIO_new_mem_buf(base, Int32(buffer.count))
            defer { if let bio { _ = openssl.BIO_free(bio) } }
            return body(bio)
        }
    }
}
