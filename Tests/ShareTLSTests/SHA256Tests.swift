// SHA-256 through OpenSSL EVP: FIPS 180-2 vectors, chunking, value semantics.

import Foundation
import Testing

@testable import ShareTLS

@Suite("SHA-256")
struct SHA256Tests {
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    @Test(
        "FIPS 180-2 vectors",
        arguments: [
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
        ])
    func vectors(message: String, digest: String) {
        #expect(Self.hex(SHA256.hash(Array(message.utf8))) == digest)
        var incremental = SHA256()
        incremental.update(utf8: message)
        #expect(Self.hex(incremental.finalize()) == digest)
    }

    @Test("a million 'a', fed in odd chunk sizes")
    func millionA() {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        let chunkSizes = [1, 7, 64, 63, 65, 1000, 4093, 9973]
        var hash = SHA256()
        var offset = 0
        var turn = 0
        while offset < message.count {
            let end = min(message.count, offset + chunkSizes[turn % chunkSizes.count])
            hash.update(message[offset..<end])
            offset = end
            turn += 1
        }
        #expect(Self.hex(hash.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(Self.hex(SHA256.hash(message)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("a copy forks the running hash")
    func copyForks() {
        var first = SHA256()
        first.update(Array("ab".utf8))
        var second = first
        first.update(Array("c".utf8))
        second.update(Array("d".utf8))
        #expect(Self.hex(first.finalize()) == Self.hex(SHA256.hash(Array("abc".utf8))))
        #expect(Self.hex(second.finalize()) == Self.hex(SHA256.hash(Array("abd".utf8))))
    }

    @Test("random bytes differ and have the requested length")
    func randomBytes() {
        let a = SecureRandom.bytes(32)
        let b = SecureRandom.bytes(32)
        #expect(a.count == 32 && b.count == 32)
        #expect(a != b)
        #expect(SecureRandom.bytes(0).isEmpty)
    }
}
