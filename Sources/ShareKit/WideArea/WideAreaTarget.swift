import ShareDocuments
import ShareTransport

/// A `--to` peer seen in a wide-area DNS domain: a connection to it either proves the key it
/// advertises (it is then no longer "unconfirmed" in `share peers`) or fails (it may be an entry
/// its receiver left behind), and ``WideAreaConfirmations`` remembers which.
public struct WideAreaTarget: Sendable {
    var fingerprintPrefix: String
    var port: UInt16

    /// Nil for a peer seen only on the local network, or without a fingerprint.
    init?(_ peer: NearbyPeer) {
        guard let prefix = peer.fingerprintPrefix, peer.domains.contains(where: { $0 != PeerMerger.localDomain }) else {
            return nil
        }
        fingerprintPrefix = prefix
        port = peer.port
    }

    /// Remembers what the sends to wide-area peers showed.
    public static func record(_ destinations: [SendDestination], _ results: [Result<SendReport, SendError>], node: LocalNode) {
        let confirmations = WideAreaConfirmations(dataDirectory: node.paths.dataDirectory)
        for (destination, result) in zip(destinations, results) {
            guard let target = destination.wideArea else { continue }
            switch result {
            case .success(let report):
                if let endpoint = Endpoint(parsing: report.endpoint) {
                    confirmations.confirm(fingerprintPrefix: target.fingerprintPrefix, port: target.port, address: endpoint.host)
                }
            case .failure(.transport), .failure(.identityMismatch):
                confirmations.forget(fingerprintPrefix: target.fingerprintPrefix, port: target.port)
            case .failure:
                break
            }
        }
    }

    /// The places that could not be searched, for an error about a peer that was not found.
    static func note(_ warnings: [String]) -> String {
        warnings.isEmpty ? "" : " (not searched: " + warnings.map { DisplayText.escape($0) }.joined(separator: "; ") + ")"
    }
}
