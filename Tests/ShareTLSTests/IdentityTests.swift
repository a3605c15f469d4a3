// Identity files: creation, modes, reload, renewal, corruption, races.

import Foundation
import Testing

@testable import ShareTLS

#if canImport(Glibc)
    import Glibc
#endif

/// A fresh folder under /tmp, removed at the end of the test.
final class TemporaryFolder {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "share-tls-tests-" + UUID().uuidString
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A path inside the folder.
    func child(_ name: String) -> String { path + "/" + name }
}

func mode(_ path: String) -> mode_t? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return info.st_mode & 0o7777
}

func contents(_ path: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path).map { [UInt8]($0) }
}

func write(_ bytes: [UInt8], to path: String) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// Runs `openssl` with `arguments` and returns its standard output (nil if it could not run or failed).
func runOpenSSL(_ arguments: [String]) -> Data? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { return nil }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return process.terminationStatus == 0 ? data : nil
}

@Suite("Identity")
struct IdentityTests {
    @Test("first use creates the folder 0700, the key 0600 and the certificate; reloading gives the same identity")
    func createAndReload() throws {
        let root = TemporaryFolder()
        let folder = root.child("config/share")
        let created = try Identity.loadOrCreate(in: folder)
        let keyPath = folder + "/identity.key"
        let certificatePath = folder + "/identity.crt"

        #expect(mode(root.child("config")) == 0o700)
        #expect(mode(folder) == 0o700)
        #expect(mode(keyPath) == 0o600)
        #expect(mode(certificatePath) == 0o644)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["identity.crt", "identity.key"])
        let keyText = String(decoding: contents(keyPath) ?? [], as: UTF8.self)
        #expect(keyText.hasPrefix("-----BEGIN PRIVATE KEY-----"), "the key is stored as PKCS#8 PEM")
        #expect(String(decoding: contents(certificatePath) ?? [], as: UTF8.self) == created.certificatePEM)

        let reloaded = try Identity.loadOrCreate(in: folder)
        #expect(reloaded.fingerprint == created.fingerprint)
        #expect(reloaded.certificatePEM == created.certificatePEM, "a valid certificate is not re-issued")
    }

    @Test("the certificate is a self-signed X.509 v3 with the agreed name, serial, validity and extensions")
    func certificateContents() throws {
        let root = TemporaryFolder()
        let before = Date()
        let identity = try Identity.loadOrCreate(in: root.path)
        #expect(abs(identity.notBefore.timeIntervalSince(before - 86_400)) < 60)
        #expect(abs(identity.notAfter.timeIntervalSince(before + 7_305 * 86_400)) < 60)
        #expect(identity.certificateIsSelfSigned)

        let text = try #require(runOpenSSL(["x509", "-in", root.child("identity.crt"), "-noout", "-text"]))
        let dump = String(decoding: text, as: UTF8.self)
        #expect(dump.contains("Version: 3 (0x2)"))
        #expect(dump.contains("Issuer: CN = share node"))
        #expect(dump.contains("Subject: CN = share node"))
        #expect(dump.contains("Signature Algorithm: ED25519"))
        #expect(dump.contains("X509v3 Basic Constraints: critical\n                CA:FALSE"))
        #expect(dump.contains("X509v3 Key Usage: critical\n                Digital Signature\n"))
        #expect(
            dump.contains(
                "X509v3 Extended Key Usage: \n                TLS Web Server Authentication, TLS Web Client Authentication"
            ))

        let serial = try #require(runOpenSSL(["x509", "-in", root.child("identity.crt"), "-noout", "-serial"]))
        let serialHex = String(decoding: serial, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: "serial=", with: "")
        #expect(serialHex.count >= 28 && serialHex.count <= 34, "a 128-bit serial (\(serialHex))")
        let other = try Identity.generateEphemeral(notBefore: Date(), notAfter: Date() + 60)
        #expect(other.certificatePEM != identity.certificatePEM)
    }

    @Test("the fingerprint is SHA-256 of the DER SubjectPublicKeyInfo, as openssl computes it")
    func fingerprintMatchesOpenSSL() throws {
        let root = TemporaryFolder()
        let identity = try Identity.loadOrCreate(in: root.path)
        let der = try #require(runOpenSSL(["pkey", "-in", root.child("identity.key"), "-pubout", "-outform", "DER"]))
        #expect(der.count == 44, "Ed25519 SPKI is 44 bytes")
        #expect(identity.fingerprint.bytes == SHA256.hash([UInt8](der)))
        let fromCertificate = try #require(
            runOpenSSL([
                "x509", "-in", root.child("identity.crt"), "-noout", "-pubkey",
            ]))
        #expect(String(decoding: fromCertificate, as: UTF8.self).contains("BEGIN PUBLIC KEY"))
    }

    @Test("a corrupt key file is an error naming the file, and the file is left as it was")
    func corruptKey() throws {
        let root = TemporaryFolder()
        let original = try Identity.loadOrCreate(in: root.path)
        let keyPath = root.child("identity.key")
        let garbage = Array("-----BEGIN PRIVATE KEY-----\nnot base64 at all!\n-----END PRIVATE KEY-----\n".utf8)
        try write(garbage, to: keyPath)
        let certificateBefore = contents(root.child("identity.crt"))

        let error = #expect(throws: IdentityError.self) { try Identity.loadOrCreate(in: root.path) }
        guard case .invalidKey(let path, _) = error else {
            Issue.record("expected .invalidKey, got \(String(describing: error))")
            return
        }
        #expect(path == keyPath)
        let message = error?.description ?? ""
        #expect(message.contains(keyPath))
        #expect(message.contains("left it untouched"))
        #expect(contents(keyPath) == garbage, "the key file is not overwritten")
        #expect(contents(root.child("identity.crt")) == certificateBefore)
        _ = original
    }

    @Test("an empty key file is an error too, never a reason to make a new key")
    func emptyKey() throws {
        let root = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: root.path, withIntermediateDirectories: true)
        try write([], to: root.child("identity.key"))
        chmod(root.child("identity.key"), 0o600)
        let error = #expect(throws: IdentityError.self) { try Identity.loadOrCreate(in: root.path) }
        #expect(error == .invalidKey(path: root.child("identity.key"), detail: "the file is empty"))
        #expect(contents(root.child("identity.key")) == [])
        #expect(!FileManager.default.fileExists(atPath: root.child("identity.crt")))
    }

    @Test("a missing certificate is re-issued for the same key")
    func missingCertificate() throws {
        let root = TemporaryFolder()
        let original = try Identity.loadOrCreate(in: root.path)
        try FileManager.default.removeItem(atPath: root.child("identity.crt"))
        let renewed = try Identity.loadOrCreate(in: root.path)
        #expect(renewed.fingerprint == original.fingerprint)
        #expect(renewed.certificatePEM != original.certificatePEM)
        #expect(mode(root.child("identity.crt")) == 0o644)
        #expect(String(decoding: contents(root.child("identity.crt")) ?? [], as: UTF8.self) == renewed.certificatePEM)
    }

    @Test(
        "a certificate expiring within 30 days, expired or not yet valid is renewed for the same key",
        arguments: [
            (-400.0, 10.0),  // expires in 10 days
            (-400.0, -1.0),  // expired yesterday
            (2.0, 400.0),  // not valid for two more days
        ])
    func renewal(startDays: Double, endDays: Double) throws {
        let root = TemporaryFolder()
        let original = try Identity.loadOrCreate(in: root.path)
        let day: TimeInterval = 86_400
        let aging = try original.reissued(notBefore: Date() + startDays * day, notAfter: Date() + endDays * day)
        try write(Array(aging.certificatePEM.utf8), to: root.child("identity.crt"))

        let renewed = try Identity.loadOrCreate(in: root.path)
        #expect(renewed.fingerprint == original.fingerprint)
        #expect(renewed.notAfter > Date() + 19 * 365 * day)
        #expect(renewed.notBefore < Date())
        #expect(String(decoding: contents(root.child("identity.crt")) ?? [], as: UTF8.self) == renewed.certificatePEM)
    }

    @Test("a certificate with more than 30 days left is kept")
    func noEarlyRenewal() throws {
        let root = TemporaryFolder()
        let original = try Identity.loadOrCreate(in: root.path)
        let kept = try original.reissued(notBefore: Date() - 86_400, notAfter: Date() + 40 * 86_400)
        try write(Array(kept.certificatePEM.utf8), to: root.child("identity.crt"))
        #expect(try Identity.loadOrCreate(in: root.path).certificatePEM == kept.certificatePEM)
    }

    @Test("a corrupt certificate is an error naming it, and it is not overwritten")
    func corruptCertificate() throws {
        let root = TemporaryFolder()
        _ = try Identity.loadOrCreate(in: root.path)
        let garbage = Array("this is not a certificate\n".utf8)
        try write(garbage, to: root.child("identity.crt"))
        let error = #expect(throws: IdentityError.self) { try Identity.loadOrCreate(in: root.path) }
        guard case .invalidCertificate(let path, _) = error else {
            Issue.record("expected .invalidCertificate, got \(String(describing: error))")
            return
        }
        #expect(path == root.child("identity.crt"))
        #expect(error?.description.contains("does not change") == true)
        #expect(contents(root.child("identity.crt")) == garbage)
    }

    @Test("a certificate for another key is refused")
    func foreignCertificate() throws {
        let root = TemporaryFolder()
        _ = try Identity.loadOrCreate(in: root.path)
        let stranger = try Identity.generateEphemeral(notBefore: Date() - 60, notAfter: Date() + 86_400 * 365)
        try write(Array(stranger.certificatePEM.utf8), to: root.child("identity.crt"))
        #expect(
            throws: IdentityError.certificateDoesNotMatchKey(
                certificatePath: root.child("identity.crt"), keyPath: root.child("identity.key"))
        ) {
            try Identity.loadOrCreate(in: root.path)
        }
    }

    @Test("a certificate whose key is gone is an error, not a new identity")
    func keyMissing() throws {
        let root = TemporaryFolder()
        _ = try Identity.loadOrCreate(in: root.path)
        try FileManager.default.removeItem(atPath: root.child("identity.key"))
        let certificate = contents(root.child("identity.crt"))
        #expect(
            throws: IdentityError.keyMissing(
                keyPath: root.child("identity.key"), certificatePath: root.child("identity.crt"))
        ) {
            try Identity.loadOrCreate(in: root.path)
        }
        #expect(!FileManager.default.fileExists(atPath: root.child("identity.key")))
        #expect(contents(root.child("identity.crt")) == certificate)
    }

    @Test("a key file that was readable by others is refused, not silently repaired")
    func exposedKeyRefused() throws {
        let root = TemporaryFolder()
        _ = try Identity.loadOrCreate(in: root.path)
        chmod(root.child("identity.key"), 0o644)
        #expect(throws: IdentityError.keyExposed(path: root.child("identity.key"), mode: 0o100644)) {
            try Identity.loadOrCreate(in: root.path)
        }
        #expect(mode(root.child("identity.key")) == 0o644, "left as it was, for the user to see")
    }

    @Test("an identity folder that others can write, or that is a link, is refused")
    func unsafeFolderRefused() throws {
        let root = TemporaryFolder()
        _ = try Identity.loadOrCreate(in: root.path)
        chmod(root.path, 0o777)
        #expect(throws: IdentityError.self) { try Identity.loadOrCreate(in: root.path) }
        chmod(root.path, 0o700)
        let link = root.path + "-link"
        symlink(root.path, link)
        defer { unlink(link) }
        #expect(throws: IdentityError.unsafeFolder(path: link, reason: "is a symbolic link")) {
            try Identity.loadOrCreate(in: link)
        }
    }

    @Test("an RSA key is refused with a clear error")
    func rsaKey() throws {
        let root = TemporaryFolder()
        try FileManager.default.createDirectory(atPath: root.path, withIntermediateDirectories: true)
        let key = try #require(runOpenSSL(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"]))
        try key.write(to: URL(fileURLWithPath: root.child("identity.key")))
        chmod(root.child("identity.key"), 0o600)
        #expect(throws: IdentityError.unsupportedKeyType(path: root.child("identity.key"), type: "RSA")) {
            try Identity.loadOrCreate(in: root.path)
        }
    }

    @Test("an encrypted key is refused without prompting for a passphrase")
    func encryptedKey() throws {
        let root = TemporaryFolder()
        let identity = try Identity.generateEphemeral(notBefore: Date() - 60, notAfter: Date() + 86_400)
        try FileManager.default.createDirectory(atPath: root.path, withIntermediateDirectories: true)
        let plain = root.child("plain.key")
        try write(Array(identity.privateKeyPEM.utf8), to: plain)
        let encrypted = try #require(runOpenSSL(["pkey", "-in", plain, "-aes256", "-passout", "pass:secret"]))
        try encrypted.write(to: URL(fileURLWithPath: root.child("identity.key")))
        chmod(root.child("identity.key"), 0o600)
        #expect(throws: IdentityError.encryptedKey(path: root.child("identity.key"))) {
            try Identity.loadOrCreate(in: root.path)
        }
    }

    @Test("threads racing to create an identity in a fresh folder all end up with the same one")
    func concurrentCreation() async throws {
        for _ in 0..<8 {
            let root = TemporaryFolder()
            let folder = root.child("share")
            let results = await withTaskGroup(of: Result<Fingerprint, any Error>.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        await onThread { try Identity.loadOrCreate(in: folder).fingerprint }
                    }
                }
                var results: [Result<Fingerprint, any Error>] = []
                for await result in group { results.append(result) }
                return results
            }
            let fingerprints = try results.map { try $0.get() }
            #expect(Set(fingerprints).count == 1)
            #expect(try Identity.loadOrCreate(in: folder).fingerprint == fingerprints.first)
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == [
                    "identity.crt", "identity.key",
                ],
                "no temporary files are left behind")
        }
    }

    @Test("ephemeral identities live in memory only")
    func ephemeral() throws {
        let start = Date(timeIntervalSince1970: 1_577_836_800)  // 2020-01-01
        let end = Date(timeIntervalSince1970: 1_577_923_200)  // 2020-01-02
        let identity = try Identity.generateEphemeral(notBefore: start, notAfter: end)
        #expect(identity.notBefore == start)
        #expect(identity.notAfter == end)
        #expect(identity.certificateIsSelfSigned)
        #expect(try !Identity.generateWithInvalidSignature().certificateIsSelfSigned)
    }
}
