public import Foundation
public import ShareTLS
import ShareUnicode

import ShareSystem

#if canImport(Glibc)
import Glibc
#endif

/// The peers this machine knows, stored as `trust.json` in the config folder: the ones the user
/// verified (pinned: their key is remembered) and the ones the user blocked.
///
/// Every entry is keyed by fingerprint. A name is only a label: the name a peer was verified under,
/// which is shown with it; it never decides whether a key is trusted.
///
/// Written atomically under a lock (several `share` processes may update it at once). When the
/// file exists but cannot be read or parsed, loading fails: an unreadable trust store never
/// silently becomes an empty one (it fails closed).
public struct TrustStore: Sendable, Codable, Equatable {
    /// How a peer came to be trusted.
    public enum Verification: String, Sendable, Codable {
        /// The users compared the verification code on both sides.
        case code
    }

    /// A verified (pinned) peer.
    public struct Peer: Sendable, Codable, Hashable {
        /// Its fingerprint, lowercase hex.
        public var fingerprint: String
        /// The name it used when it was verified.
        public var name: String
        /// When it was first seen (verified).
        public var firstSeen: Date
        /// How it was verified.
        public var verification: Verification
    }

    /// A blocked peer: refused before any prompt.
    public struct Blocked: Sendable, Codable, Equatable {
        /// Its fingerprint, lowercase hex: all 64 digits, or a prefix of at least
        /// ``minimumBlockPrefix`` (what a receiver prints), which blocks every key that starts with it.
        public var fingerprint: String
        /// The name it used, if known.
        public var name: String
        /// When it was blocked.
        public var since: Date
    }

    /// The file's name in the config folder.
    public static let fileName = "trust.json"

    /// Verified peers, in the order they were added.
    public private(set) var peers: [Peer] = []
    /// Blocked peers.
    public private(set) var blocked: [Blocked] = []

    /// An empty store.
    public init() {}

    /// The verified peer with this fingerprint.
    public func peer(_ fingerprint: Fingerprint) -> Peer? {
        peers.first { $0.fingerprint == fingerprint.hex }
    }

    /// Hex digits of a fingerprint prefix that `share trust block` accepts without the full key: the
    /// length a receiver prints with each offer (64 bits: no one can make a key to match it on purpose).
    public static let minimumBlockPrefix = 16
    /// Hex digits of a fingerprint prefix that names a verified or blocked peer in `share trust remove`.
    public static let minimumLookupPrefix = 8

    /// The verified peer whose fingerprint starts with `prefix` (as advertised in DNS-SD), if exactly one.
    public func peer(withPrefix prefix: String) -> Peer? {
        let prefix = prefix.lowercased()
        guard prefix.count >= 16 else { return nil }
        let matches = peers.filter { $0.fingerprint.hasPrefix(prefix) }
        return matches.count == 1 ? matches[0] : nil
    }

    /// The verified peer whose name `name` is, or looks like (any case, look-alike letters such as a
    /// Cyrillic `е`, spaces around it, Avahi's ` #2`: ``NameLookalikes``), while its key is not
    /// `fingerprint`: a machine that passes itself off under the name of one this machine verified.
    /// It is a different, unverified machine; this is only for flagging it.
    public func namesake(of name: String, fingerprint: Fingerprint) -> Peer? {
        guard peer(fingerprint) == nil else { return nil }
        let key = NameLookalikes.key(Self.withoutAlternativeSuffix(name))
        return peers.first { NameLookalikes.key(Self.withoutAlternativeSuffix($0.name)) == key && $0.fingerprint != fingerprint.hex }
    }

    /// `name` without the ` #2` Avahi appends after a collision.
    public static func withoutAlternativeSuffix(_ name: String) -> String {
        guard let hash = name.range(of: " #", options: .backwards),
            !name[hash.upperBound...].isEmpty, name[hash.upperBound...].allSatisfy(\.isNumber)
        else { return name }
        return String(name[..<hash.lowerBound])
    }

    /// The verified peers called `name` (any case): normally one, but two machines may have been
    /// verified under one name.
    public func peers(named name: String) -> [Peer] {
        let folded = name.lowercased()
        return peers.filter { $0.name.lowercased() == folded }
    }

    /// Whether `fingerprint` is blocked (by its full value or a blocked prefix of it).
    public func isBlocked(_ fingerprint: Fingerprint) -> Bool {
        blocked.contains { fingerprint.hex.hasPrefix($0.fingerprint) }
    }

    /// Remembers `fingerprint` as verified (replacing nothing: a verified key stays as it is).
    public mutating func pin(_ fingerprint: Fingerprint, name: String, verification: Verification, at date: Date = Date()) {
        guard peer(fingerprint) == nil else { return }
        peers.append(Peer(fingerprint: fingerprint.hex, name: name, firstSeen: date, verification: verification))
    }

    /// Blocks `fingerprint` (and forgets it as verified).
    public mutating func block(fingerprint: String, name: String, at date: Date = Date()) {
        peers.removeAll { $0.fingerprint == fingerprint }
        guard !blocked.contains(where: { $0.fingerprint == fingerprint }) else { return }
        blocked.append(Blocked(fingerprint: fingerprint, name: name, since: date))
    }

    /// The fingerprints a user's word for a peer names: a verified or blocked peer's name (any
    /// case), or a fingerprint prefix (spaces and colons allowed, as printed) of at least
    /// ``minimumLookupPrefix`` hex digits.
    public func fingerprints(matching query: String) -> [String] {
        let folded = query.lowercased()
        let hex = Self.hexDigits(of: query)
        var all: [(String, String)] = peers.map { ($0.fingerprint, $0.name) } + blocked.map { ($0.fingerprint, $0.name) }
        all = all.filter { fingerprint, name in
            name.lowercased() == folded
                || (hex.map { $0.count >= Self.minimumLookupPrefix && (fingerprint.hasPrefix($0) || $0.hasPrefix(fingerprint)) } ?? false)
        }
        return Array(Set(all.map(\.0))).sorted()
    }

    /// The hex digits of `text` as a user types a printed fingerprint (`3927 A1B2`, `39:27:a1`),
    /// lowercased; nil when it holds anything else.
    public static func hexDigits(of text: String) -> String? {
        let digits = text.lowercased().filter { $0 != " " && $0 != ":" }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isHexDigit && $0.isASCII }) else { return nil }
        return digits
    }

    /// Forgets `fingerprint` (verified or blocked).
    public mutating func remove(fingerprint: String) {
        peers.removeAll { $0.fingerprint == fingerprint }
        blocked.removeAll { $0.fingerprint == fingerprint }
    }

    /// Loads the store from `directory`; a missing file is an empty store.
    /// - Throws: ``ConfigurationError`` when the file exists but cannot be used.
    public static func load(from directory: String) throws(ConfigurationError) -> TrustStore {
        let path = directory + "/" + fileName
        guard FileManager.default.fileExists(atPath: path) else { return TrustStore() }
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode(TrustStore.self, from: data)
        } catch {
            throw .unreadable(path: path, reason: "the trust store is damaged (\(error)); nothing is trusted until it is fixed")
        }
    }

    /// Loads, changes and saves the store while holding its lock; returns what `change` returned.
    @discardableResult
    public static func update<T>(in directory: String, _ change: (inout TrustStore) -> T) throws(ConfigurationError) -> T {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw .unwritable(path: directory, reason: POSIX.errorText())
        }
        let lockPath = directory + "/.trust.lock"
        let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw .unwritable(path: lockPath, reason: POSIX.errorText()) }
        defer { close(lock) }
        _ = flock(lock, LOCK_EX)
        var store = try load(from: directory)
        let before = store
        let result = change(&store)
        guard store != before else { return result }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let data: Data
        do {
            data = try encoder.encode(store)
        } catch {
            throw .unwritable(path: directory + "/" + fileName, reason: "\(error)")
        }
        try AtomicFile.write(data, to: directory + "/" + fileName, mode: 0o600)
        return result
    }
}
