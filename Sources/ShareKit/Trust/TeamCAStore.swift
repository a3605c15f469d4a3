public import Foundation
public import ShareTLS

import ShareSystem

#if canImport(Glibc)
import Glibc
#endif

/// The team CAs the user trusts, kept as PEM files in `trusted-cas/` in the config folder: one file
/// per CA, named by the SHA-256 of its certificate (`<64 hex digits>.pem`).
///
/// A peer whose certificate one of these CAs issued is *CA-trusted*: a policy may accept it without
/// a verification code (see ``TrustAnchors``). Removing a CA (``remove(matching:)``) is how its
/// certificates are revoked: share uses no CRL or OCSP.
public struct TeamCAStore: Sendable {
    /// The folder's name inside the config folder.
    public static let folderName = "trusted-cas"

    /// The largest file taken as a CA certificate (a PEM certificate is a few kilobytes).
    static let maximumFileSize = 1 << 20

    /// `<config>/trusted-cas`.
    public let directory: String

    /// The store of the config folder `configDirectory`.
    public init(configDirectory: String) {
        directory = configDirectory + "/" + Self.folderName
    }

    /// One file of the folder: its CA, or why it is not usable.
    public struct Entry: Sendable {
        /// The file's path.
        public var path: String
        /// The CA in it, or what is wrong with it.
        public var authority: Result<CACertificate, TrustAnchorError>
    }

    /// Every `.pem` file of the folder, usable or not, sorted by the CAs' names (broken files last).
    /// A missing folder holds none.
    /// - Throws: ``ConfigurationError/unreadable(path:reason:)`` when the folder or a file cannot be read.
    public func entries() throws(ConfigurationError) -> [Entry] {
        guard FileManager.default.fileExists(atPath: directory) else { return [] }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw .unreadable(path: directory, reason: "\(error)")
        }
        var entries: [Entry] = []
        for name in names.sorted() where name.hasSuffix(".pem") && !name.hasPrefix(".") {
            let path = directory + "/" + name
            let text = try Self.read(path)
            entries.append(Entry(path: path, authority: Result { () throws(TrustAnchorError) in
                try CACertificate.parse(pem: text, source: path)
            }))
        }
        return entries.sorted { left, right in
            switch (left.authority, right.authority) {
            case (.success(let a), .success(let b)):
                return (a.info.displayName.lowercased(), a.info.fingerprint.hex) < (b.info.displayName.lowercased(), b.info.fingerprint.hex)
            case (.success, .failure): return true
            case (.failure, .success): return false
            case (.failure, .failure): return left.path < right.path
            }
        }
    }

    /// The CAs, sorted by name.
    /// - Throws: ``TeamCAStoreError/brokenFile(path:problem:)`` for a file that is not a usable CA
    ///   certificate (an unreadable store never silently becomes an empty one), or
    ///   ``TeamCAStoreError/configuration(_:)``.
    public func load() throws(TeamCAStoreError) -> [CACertificate] {
        let entries: [Entry]
        do {
            entries = try self.entries()
        } catch {
            throw .configuration(error)
        }
        var authorities: [CACertificate] = []
        for entry in entries {
            switch entry.authority {
            case .success(let authority): authorities.append(authority)
            case .failure(let problem): throw .brokenFile(path: entry.path, problem: problem)
            }
        }
        return authorities
    }

    /// The CAs as the trust anchors of this node's TLS contexts. An expired CA is included: it
    /// vouches for no one, and its nodes are told apart from strangers in messages.
    public func anchors() throws(TeamCAStoreError) -> TrustAnchors {
        let authorities = try load()
        do {
            return try TrustAnchors(authorities)
        } catch {
            throw .invalid(error)
        }
    }

    /// Adds a CA certificate (PEM text read from `source`).
    ///
    /// - Returns: the CA, and whether it was new (`false` when it was already trusted).
    /// - Throws: ``TeamCAStoreError``: not a CA certificate (``TeamCAStoreError/invalid(_:)``), expired
    ///   or not yet valid, or the file cannot be written.
    public func add(pem: String, source: String, now: Date = Date()) throws(TeamCAStoreError) -> (CAInfo, added: Bool) {
        let authority: CACertificate
        do {
            authority = try CACertificate.parse(pem: pem, source: source)
        } catch {
            throw .invalid(error)
        }
        let info = authority.info
        if info.notAfter <= now { throw .expired(info) }
        if info.notBefore > now { throw .notYetValid(info) }
        let path = directory + "/" + info.fingerprint.hex + ".pem"
        if FileManager.default.fileExists(atPath: path) { return (info, false) }
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .configuration(.unwritable(path: directory, reason: "\(error)"))
        }
        do {
            try AtomicFile.write(Data(authority.pem.utf8), to: path, mode: 0o644)
        } catch {
            throw .configuration(error)
        }
        return (info, true)
    }

    /// Whether the CA with this certificate fingerprint is (still) trusted.
    public func contains(_ fingerprint: Fingerprint) -> Bool {
        if FileManager.default.fileExists(atPath: directory + "/" + fingerprint.hex + ".pem") { return true }
        // A file the user put there under another name.
        let entries = (try? self.entries()) ?? []
        return entries.contains { entry in
            if case .success(let authority) = entry.authority { return authority.info.fingerprint == fingerprint }
            return false
        }
    }

    /// The trusted CA that `id` names: a unique prefix of its fingerprint (hex; colons and spaces are
    /// ignored), or its subject or common name (any case).
    /// - Throws: ``TeamCAStoreError/noMatch(_:known:)`` or ``TeamCAStoreError/ambiguous(_:matches:)``.
    public func find(_ id: String) throws(TeamCAStoreError) -> CACertificate {
        try match(id, among: usable()).authority
    }

    /// Removes the trusted CA that `id` names (see ``find(_:)``). From then on it vouches for no one,
    /// in every `share` started afterwards.
    /// - Returns: the CA removed.
    public func remove(matching id: String) throws(TeamCAStoreError) -> CAInfo {
        let (path, authority) = try match(id, among: usable())
        guard unlink(path) == 0 || errno == ENOENT else {
            throw .configuration(.unwritable(path: path, reason: POSIX.errorText()))
        }
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            _ = fsync(fd)
            close(fd)
        }
        return authority.info
    }

    /// The usable CAs with their files (broken files are left for the user; see ``entries()``).
    private func usable() throws(TeamCAStoreError) -> [(path: String, authority: CACertificate)] {
        let entries: [Entry]
        do {
            entries = try self.entries()
        } catch {
            throw .configuration(error)
        }
        return entries.compactMap { entry in
            guard case .success(let authority) = entry.authority else { return nil }
            return (entry.path, authority)
        }
    }

    private func match(
        _ id: String, among candidates: [(path: String, authority: CACertificate)]
    ) throws(TeamCAStoreError) -> (path: String, authority: CACertificate) {
        let query = id.trimmingCharacters(in: .whitespaces)
        guard !query.isEmpty else { throw .noMatch(id, known: candidates.map(\.authority.info)) }
        let byName = candidates.filter { candidate in
            let info = candidate.authority.info
            return info.subject.caseInsensitiveCompare(query) == .orderedSame
                || info.commonName?.caseInsensitiveCompare(query) == .orderedSame
        }
        let byFingerprint = candidates.filter { $0.authority.info.fingerprint.matches(prefix: query) }
        var matches = byName
        for candidate in byFingerprint where !matches.contains(where: { $0.path == candidate.path }) {
            matches.append(candidate)
        }
        if matches.count == 1 { return matches[0] }
        if matches.isEmpty { throw .noMatch(id, known: candidates.map(\.authority.info)) }
        throw .ambiguous(id, matches: matches.map(\.authority.info))
    }

    private static func read(_ path: String) throws(ConfigurationError) -> String {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        if let size = attributes?[.size] as? Int, size > maximumFileSize {
            throw .unreadable(path: path, reason: "it is larger than \(maximumFileSize) bytes")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unreadable(path: path, reason: "it cannot be read")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
