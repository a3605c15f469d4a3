// ShareTLS: what can go wrong loading or creating the node's identity.

public import Foundation
import ShareSystem

/// An error loading or creating the node's identity (its key and certificate files).
///
/// Every case that concerns a file names it. share never overwrites, regenerates or "repairs" a private key on
/// its own: a key that cannot be used is an error the user resolves.
public enum IdentityError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The identity folder could not be created or opened.
    case cannotCreateDirectory(path: String, errno: Int32)

    /// A file exists but could not be opened or read (permissions, I/O error, not a regular file).
    case cannotRead(path: String, detail: String)

    /// The key file exists but does not hold a usable private key. It was left untouched.
    case invalidKey(path: String, detail: String)

    /// The key file holds a passphrase-protected key, which share cannot use unattended.
    case encryptedKey(path: String)

    /// The key file holds a key of another type than Ed25519.
    case unsupportedKeyType(path: String, type: String)

    /// The certificate file exists but does not hold a usable certificate. It was left untouched.
    case invalidCertificate(path: String, detail: String)

    /// The certificate file holds a certificate for a different key.
    case certificateDoesNotMatchKey(certificatePath: String, keyPath: String)

    /// The certificate exists but the key it belongs to is gone: share refuses to make a new identity silently.
    case keyMissing(keyPath: String, certificatePath: String)

    /// Writing a file failed (disk full, read-only file system, permissions).
    case cannotWrite(path: String, operation: String, errno: Int32)

    /// The key file is readable by others and its permissions could not be restricted to 0600.
    case cannotProtectKeyFile(path: String, errno: Int32)
    /// The key file was readable or writable by other users: it may have been copied, so it is not used.
    case keyExposed(path: String, mode: UInt32)
    /// The identity folder is a symbolic link, writable by other users, or owned by someone else.
    case unsafeFolder(path: String, reason: String)

    /// OpenSSL failed while making a key or certificate (not caused by any file).
    case openSSL(operation: String, reasons: [String])

    /// There is no identity key in the folder yet, so there is nothing to request or install a certificate for.
    case noIdentity(keyPath: String)

    /// The name asked for in a certificate signing request cannot be a certificate's common name.
    case invalidSubjectName(name: String, reason: String)

    /// A certificate given to install (or its chain) is not a PEM certificate.
    case notACertificate(source: String, detail: String)

    /// A certificate given to install is for another key than this node's: installing it would change nothing
    /// but break every connection.
    case certificateForAnotherKey(source: String, certificateKey: Fingerprint, identityKey: Fingerprint)

    /// A certificate given to install has expired.
    case certificateExpired(source: String, notAfter: Date)

    /// A certificate given to install is not valid yet.
    case certificateNotYetValid(source: String, notBefore: Date)

    /// A certificate given to install cannot serve as a share node's certificate (a CA certificate, or key
    /// usages that do not allow TLS servers and clients).
    case certificateUnusable(source: String, reason: String)

    /// The chain given with a certificate does not belong to it.
    case chainDoesNotMatch(source: String, detail: String)

    /// A sentence for the user saying what happened and what to do.
    public var description: String {
        switch self {
        case .cannotCreateDirectory(let path, let code):
            return "Cannot create the identity folder \(path): \(Errno(code).description). "
                + "Check that its parent folder exists and is writable by you."
        case .cannotRead(let path, let detail):
            return "Cannot read \(path): \(detail). Check the file's owner and permissions (it must be readable by "
                + "you); share did not change it."
        case .invalidKey(let path, let detail):
            return "The identity key \(path) is not a usable private key (\(detail)). share left it untouched. "
                + "Restore it from a backup if you have one. Otherwise move it away (e.g. `mv '\(path)' '\(path).broken'`) "
                + "and run share again to create a NEW identity; peers that trusted this machine will then have to "
                + "trust it again."
        case .encryptedKey(let path):
            return "The identity key \(path) is protected by a passphrase, which share cannot use. "
                + "Store it unencrypted with `openssl pkey -in '\(path)' -out '\(path).plain'`, check it, then "
                + "replace the original with it (mode 0600)."
        case .unsupportedKeyType(let path, let type):
            return "The identity key \(path) is a \(type) key; share needs an Ed25519 key. share left it untouched. "
                + "Move it away and run share again to create a new identity."
        case .invalidCertificate(let path, let detail):
            return "The certificate \(path) is not usable (\(detail)). share left it untouched. Delete it or move it "
                + "away and run share again: a new certificate is made for the same key, so this machine's identity "
                + "(its fingerprint) does not change."
        case .certificateDoesNotMatchKey(let certificatePath, let keyPath):
            return "The certificate \(certificatePath) is for a different key than \(keyPath). share left both "
                + "untouched. If the certificate was copied in by mistake, delete it and run share again: a new "
                + "certificate is made for the existing key, and the identity does not change."
        case .keyMissing(let keyPath, let certificatePath):
            return "The identity key \(keyPath) is missing but its certificate \(certificatePath) is still there, so "
                + "this machine's identity was lost. Restore the key from a backup; or, to start over with a NEW "
                + "identity (peers will have to trust this machine again), move \(certificatePath) away and run "
                + "share again."
        case .cannotWrite(let path, let operation, let code):
            return "Cannot save \(path) (\(operation) failed: \(Errno(code).description)). "
                + "Check free disk space and that the folder is writable by you."
        case .cannotProtectKeyFile(let path, let code):
            return "The identity key \(path) can be read by other users and share could not restrict it "
                + "(\(Errno(code).description)). Run `chmod 600 '\(path)'` and check that you own the file."
        case .keyExposed(let path, let mode):
            let folder = path.split(separator: "/").dropLast().joined(separator: "/")
            return "The identity key \(path) was readable by other users (mode \(String(mode & 0o777, radix: 8))): it may have "
                + "been copied, so share will not use it (as OpenSSH refuses an unprotected key). Make a new identity: move "
                + "\(path) and the certificate beside it out of /\(folder) (or delete them) and run share again; then verify "
                + "this machine again with your peers, who should remove the old key ('share trust remove')."
        case .unsafeFolder(let path, let reason):
            return "The identity folder \(path) \(reason), so another user could replace its files; share will not use it. "
                + "Use a folder of your own with mode 0700 (e.g. `chmod 700 '\(path)'`), or set SHARE_CONFIG_DIR to one."
        case .openSSL(let operation, let reasons):
            return "OpenSSL failed while \(operation): \(reasons.joined(separator: "; ")). "
                + "This is not caused by your files; please report it with the OpenSSL version (`openssl version`)."
        case .noIdentity(let keyPath):
            return "There is no identity key (\(keyPath)) yet. Run `share identity` once to create this machine's "
                + "identity, then ask for a certificate with `share identity csr`."
        case .invalidSubjectName(let name, let reason):
            return "\"\(name)\" cannot be a certificate's name: \(reason). Choose another with --name."
        case .notACertificate(let source, let detail):
            return "\(source) is not a PEM certificate (\(detail)). Give the certificate the team CA issued "
                + "(`-----BEGIN CERTIFICATE-----`)."
        case .certificateForAnotherKey(let source, let certificateKey, let identityKey):
            return "\(source) was issued for another key (fingerprint \(certificateKey.grouped)), not for this "
                + "machine's key (fingerprint \(identityKey.grouped)). Nothing was changed. Have the team CA sign "
                + "a request made on this machine (`share identity csr`) and install that certificate."
        case .certificateExpired(let source, let notAfter):
            return "\(source) expired on \(TLSError.format(notAfter)). Nothing was changed. Ask the team CA for a "
                + "new certificate (`share identity csr`), or check this machine's clock (`date`)."
        case .certificateNotYetValid(let source, let notBefore):
            return "\(source) is not valid until \(TLSError.format(notBefore)). Nothing was changed. Check this "
                + "machine's clock (`date`), or install it once it is valid."
        case .certificateUnusable(let source, let reason):
            return "\(source) cannot be this machine's certificate: \(reason). Nothing was changed. Have it issued "
                + "with the node extensions share-team-ca issue uses (openssl-team-ca.cnf)."
        case .chainDoesNotMatch(let source, let detail):
            return "The chain \(source) does not belong to the certificate: \(detail). Nothing was changed. Give the "
                + "certificate of the CA that issued it (or leave --chain out)."
        }
    }
}
