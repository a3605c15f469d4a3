import Foundation
import ShareDiscovery

/// Remembers the wide-area receivers whose key a connection from this machine proved: DNS has no
/// leases, so an entry may outlive its receiver (a crash), and anyone allowed to update the zone
/// may add entries. `share peers` shows a receiver seen only in DNS as "unconfirmed" until a
/// connection to one of its addresses met the key it advertises; a failed connection forgets it.
///
/// Kept in `<data>/wide-area-confirmed.json` (mode 0600): fingerprint prefix, port and address.
/// A damaged or missing file means nothing is confirmed.
public struct WideAreaConfirmations: Sendable {
    /// One proof: the receiver at `address`:`port` presented the key with `fingerprint`.
    struct Entry: Codable, Hashable {
        var fingerprint: String
        var port: UInt16
        var address: String
    }

    /// The file.
    public let path: String

    public init(dataDirectory: String) {
        path = dataDirectory + "/wide-area-confirmed.json"
    }

    private func load() -> [Entry] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return (try? JSONDecoder().decode([Entry].self, from: data)) ?? []
    }

    private func save(_ entries: [Entry]) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(entries) else { return }
        try? FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        try? AtomicFile.write(data, to: path, mode: 0o600)
    }

    /// Whether a connection proved `peer`'s advertised key at one of its addresses and its port.
    public func confirms(_ peer: NearbyPeer) -> Bool {
        guard let prefix = peer.fingerprintPrefix else { return false }
        let addresses = Set(peer.service.addresses.map(\.ip))
        return load().contains { $0.fingerprint == prefix && $0.port == peer.service.port && addresses.contains($0.address) }
    }

    /// A connection to `address`:`port` met the key advertised as `fingerprintPrefix`.
    public func confirm(fingerprintPrefix: String, port: UInt16, address: String) {
        var entries = load().filter { !($0.fingerprint == fingerprintPrefix && $0.port == port) }
        entries.append(Entry(fingerprint: fingerprintPrefix, port: port, address: address))
        save(Array(entries.suffix(256)))
    }

    /// No connection could be made to the receiver advertised as `fingerprintPrefix` on `port`.
    public func forget(fingerprintPrefix: String, port: UInt16) {
        let entries = load()
        let kept = entries.filter { !($0.fingerprint == fingerprintPrefix && $0.port == port) }
        if kept.count != entries.count { save(kept) }
    }
}
