// ShareTLS: random bytes from OpenSSL's CSPRNG.

internal import CShareOpenSSL

/// Cryptographically secure random bytes from OpenSSL's DRBG (seeded from the kernel).
///
/// The corresponding C function is `RAND_bytes`.
public enum SecureRandom: Sendable {
    /// Returns `count` random bytes.
    ///
    /// - Parameter count: the number of bytes; zero or less gives an empty array.
    /// > Warning: stops the process if OpenSSL cannot produce random bytes (its DRBG could not be seeded):
    /// > continuing without randomness would make keys and serial numbers predictable.
    public static func bytes(_ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: count)
        let ok = out.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            var offset = 0
            while offset < count {
                // RAND_bytes takes an Int32 length: go in chunks for very large requests.
                let chunk = min(count - offset, 1 << 30)
                if openssl.RAND_bytes(base + offset, Int32(chunk)) != 1 { return false }
                offset += chunk
            }
            return true
        }
        guard ok else {
            preconditionFailure("OpenSSL's RAND_bytes failed: the random generator could not be seeded")
        }
        return out
    }
}
