import Foundation
import ShareDNS
import ShareDNSUpdate
import Testing

#if canImport(Glibc)
import Glibc
#endif

struct TSIGKeyTests {
    static let file = """
        # made by tsig-keygen
        key "desk.office.example" {
        \talgorithm hmac-sha256;
        \tsecret "c2hhcmUgdGVzdCBzZWNyZXQgMDEyMzQ1Njc4OWFiY2RlZg==";
        };
        """

    @Test func readsWhatTsigKeygenWrites() throws {
        let key = try TSIGKey.parse(Self.file)
        #expect(key.name == (try DNSName("desk.office.example")))
        #expect(key.algorithm == "hmac-sha256")
        #expect(key.secret == "c2hhcmUgdGVzdCBzZWNyZXQgMDEyMzQ1Njc4OWFiY2RlZg==")
        let commented = try TSIGKey.parse("/* team */ key share-team { algorithm HMAC-SHA512; // strong\n secret \"YWJj\"; };")
        #expect(commented.algorithm == "hmac-sha512")
    }

    @Test func refusesWhatIsNotOneKey() {
        for (text, problem) in [
            ("", "it holds no key"),
            (Self.file + "\n" + Self.file, "it holds 2 keys; give a file with one"),
            ("key k { algorithm hmac-sha256; };", "the key has no 'secret' in base64"),
            ("key k { algorithm rot13; secret \"YWJj\"; };", "the algorithm 'rot13' is not one of hmac-md5, hmac-sha1, hmac-sha224, hmac-sha256, hmac-sha384, hmac-sha512"),
            ("zone k { };", "expected 'key', found 'zone'"),
        ] {
            #expect(throws: TSIGKeyParseError(problem: problem)) { try TSIGKey.parse(text) }
        }
    }

    @Test func aFileOthersCanReadIsRefused() throws {
        let path = FileManager.default.temporaryDirectory.appending(path: "tsig-\(getpid()).key").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Self.file.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o644)
        #expect(throws: TSIGKeyError.tooOpen(path: path, mode: 0o644)) { try TSIGKey.load(path: path) }
        chmod(path, 0o600)
        #expect(try TSIGKey.load(path: path).algorithm == "hmac-sha256")
        #expect(throws: TSIGKeyError.unreadable(path: path + ".missing", reason: "No such file or directory")) {
            try TSIGKey.load(path: path + ".missing")
        }
    }
}
