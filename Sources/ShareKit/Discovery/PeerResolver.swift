import ShareDocuments
import ShareDiscovery

/// Finds the peer a user means by `--to`: a service name (case-insensitive), a unique prefix of
/// one, or a prefix of a fingerprint.
public enum PeerResolver {
    /// Why `--to` does not name exactly one visible peer.
    public enum Failure: Error, Sendable, CustomStringConvertible {
        case notFound(query: String, visible: [String])
        case ambiguous(query: String, candidates: [String])
        case unverifiable(name: String)
        case incompatible(name: String, reason: String)
        case noUsableAddress(name: String, ignored: [String])

        /// The outcome code of `share send --json` (docs/JSON.md): `notFound`, `ambiguous`, `unreachable`
        /// (no address share will use) or `failed`.
        public var outcome: String {
            switch self {
            case .notFound: "notFound"
            case .ambiguous: "ambiguous"
            case .noUsableAddress: "unreachable"
            case .unverifiable, .incompatible: "failed"
            }
        }

        public var description: String {
            switch self {
            case .notFound(let query, let visible):
                let quoted = "'\(DisplayText.escape(query))'"
                return visible.isEmpty
                    ? "no peer named \(quoted) is visible, and no receivers were found nearby; "
                        + "check that 'share receive' runs there, or use --to HOST:PORT"
                    : "no peer named \(quoted) is visible; visible peers: "
                        + visible.map { "'\(DisplayText.escape($0))'" }.joined(separator: ", ")
            case .ambiguous(let query, let candidates):
                return "'\(DisplayText.escape(query))' matches several peers: "
                    + candidates.map { DisplayText.escape($0) }.joined(separator: ", ")
                    + "; use more of the name, or a fingerprint prefix"
            case .incompatible(let name, let reason):
                return "the peer '\(DisplayText.escape(name))' is not a receiver this share can send to: \(reason); nothing was sent"
            case .noUsableAddress(let name, let ignored):
                return "the peer '\(DisplayText.escape(name))' advertises no address share will use ("
                    + ignored.joined(separator: "; ") + "); nothing was sent"
            case .unverifiable(let name):
                return "the peer '\(DisplayText.escape(name))' advertises no valid fingerprint, so its identity "
                    + "cannot be checked; nothing was sent"
            }
        }
    }

    /// The peer `query` names among `peers`.
    public static func resolve(_ query: String, among peers: [NearbyPeer]) -> Result<NearbyPeer, Failure> {
        let folded = query.lowercased()
        func pick(_ matches: [NearbyPeer]) -> Result<NearbyPeer, Failure>? {
            if matches.count == 1 {
                let peer = matches[0]
                if let reason = peer.incompatibility { return .failure(.incompatible(name: peer.name, reason: reason)) }
                if peer.fingerprintPrefix == nil { return .failure(.unverifiable(name: peer.name)) }
                if peer.endpoints.isEmpty {
                    return .failure(
                        .noUsableAddress(name: peer.name, ignored: peer.ignoredAddresses.map { "\($0.address): \($0.reason)" }))
                }
                return .success(peer)
            }
            if matches.count > 1 {
                return .failure(.ambiguous(query: query, candidates: matches.map(describe).sorted()))
            }
            return nil
        }
        if let exact = pick(peers.filter { $0.name.lowercased() == folded }) { return exact }
        if let prefix = pick(peers.filter { $0.name.lowercased().hasPrefix(folded) }) { return prefix }
        let hex = folded.filter { $0 != " " && $0 != ":" }
        if hex.count >= 4, hex.allSatisfy(\.isHexDigit) {
            let byFingerprint = peers.filter { peer in
                guard let advertised = peer.fingerprintPrefix else { return false }
                return hex.count <= advertised.count ? advertised.hasPrefix(hex) : hex.hasPrefix(advertised)
            }
            if let found = pick(byFingerprint) { return found }
        }
        return .failure(.notFound(query: query, visible: Array(Set(peers.map(\.name))).sorted { $0.lowercased() < $1.lowercased() }))
    }

    private static func describe(_ peer: NearbyPeer) -> String {
        "\(peer.name) (\(peer.service.host), fingerprint \(peer.fingerprintPrefix?.prefix(8) ?? "none"))"
    }
}
