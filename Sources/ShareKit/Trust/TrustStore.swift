public import Foundation
public import ShareTLS

#if canImport(Glibc)
import Glibc
#endif

/// The peers this machine knows, stored as `trust.json` in the config folder.
///
/// Written atomically under a lock (several `share` processes may update it at once). When the
/// file exists but cannot be read or parsed, loading fails: an unreadable trust store never
/// silently becomes an empty one.
public struct TrustStore: Sendable, Codable, Equatable {
    /// How a peer came to be known.
    public enum Verification: String, Sendable, Codable {
        /// A transfer completed with it, the user having chosen it (trust on first use).
        case firstUse = "first-use"
    }

    /// One known peer.
    public struct Peer: Sendable, Codable, Equatable {
        /// Its fingerprint, lowercase hex.
        public var fingerprint: String
        /// The name it used when it was first seen.
        public var name: String
        /// When it was first seen.
        public var firstSeen: Date
        /// How it was verified.
        public var verification: Verification
    }

    /// The file's name in the config folder.
    public static let fileName = "trust.json"

    /// Known peers, in the order they were added.
    public private(set) var peers: [Peer] = []

    /// An empty store.
    public init() {}

    /// The peer with this fingerprint, if known.
    public func peer(_ fingerprint: Fingerprint) -> Peer? {
        peers.first { $0.fingerprint == fingerprint.hex }
    }

    /// The known peer whose fingerprint starts with `prefix` (as advertised in DNS-SD), if exactly one.
    public func peer(withPrefix prefix: String) -> Peer? {
        let prefix = prefix.lowercased()
        guard prefix.count >= 16 else { return nil }
        let matches = peers.filter { $0.fingerprint.hasPrefix(prefix) }
        return matches.count == 1 ? matches[0] : nil
    }

    /// Records `fingerprint` as known (no change when it already is).
    public mutating func record(_ fingerprint: Fingerprint, name: String, verification: Verification, at date: Date = Date()) {
        guard peer(fingerprint) == nil else { return }
        peers.append(Peer(fingerprint: fingerprint.hex, name: name, firstSeen: date, verification: verification))
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
            throw .unreadable(path: path, reason: "\(error)")
        }
    }

    /// Loads, changes and saves the store while holding its lock.
    public static func update(in directory: String, _ change: (inout TrustStore) -> Void) throws(ConfigurationError) {
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
        change(&store)
        guard store != before else { return }
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
    }
}
