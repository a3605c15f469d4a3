import ShareDiscovery
import ShareKit
import ShareTransport

/// Turns what the user typed for `--to` (or `share trust verify`) into where to connect: a
/// `HOST:PORT` as it is, anything else looked up through Avahi as a name or fingerprint prefix.
enum PeerTargets {
    /// Where one target goes.
    struct Destination: Sendable {
        /// How to name it in messages.
        var label: String
        /// Its addresses, best first.
        var endpoints: [Endpoint]
        /// The fingerprint prefix it advertised, which its TLS key must match.
        var expectedFingerprintPrefix: String?
        /// Set when it was seen in a wide-area domain: what a connection confirms (or forgets).
        var wideArea: WideAreaTarget?
    }

    /// `HOST:PORT` and `[IPV6]:PORT` are addresses; anything else is looked up as a peer.
    static func address(_ text: String) -> Endpoint? {
        guard let endpoint = Endpoint(parsing: text), text.hasPrefix("[") || text.split(separator: ":").count == 2 else {
            return nil
        }
        return endpoint
    }

    /// Resolves every target, browsing only when one is not an address.
    /// - Throws: exit 69 when a name needs avahi-daemon and it is unavailable; 1 for an unknown or
    ///   ambiguous name, or a verified name whose advertised key changed.
    static func resolve(_ targets: [String], node: LocalNode) async throws(CLIError) -> [Destination] {
        var peers: [NearbyPeer] = []
        var warnings: [String] = []
        let names = targets.filter { address($0) == nil }
        if !names.isEmpty {
            let sightings: CombinedPeerLookup.Sightings
            do {
                sightings = try await CombinedPeerLookup.look(settings: node.settings, timeout: .seconds(5)) {
                    () throws(DiscoveryError) in try await ServiceBrowser.snapshot(timeout: .seconds(5))
                }
            } catch {
                throw CLIError(
                    "cannot look up \(names.map { "'\(TerminalText.safe($0))'" }.joined(separator: ", ")): \(error) "
                        + "Sending to HOST:PORT works without it.",
                    exitCode: error.isDaemonUnavailable ? ExitCode.unavailable : ExitCode.failure)
            }
            warnings = sightings.warnings
            do {
                peers = try PeerDirectory.nearby(sightings.merged, node: node)
            } catch {
                throw CLIError(error.description)
            }
        }
        var destinations: [Destination] = []
        for target in targets {
            if let endpoint = address(target) {
                destinations.append(Destination(label: endpoint.description, endpoints: [endpoint]))
                continue
            }
            switch PeerResolver.resolve(target, among: peers) {
            case .success(let peer):
                try checkKnownKey(of: peer, node: node)
                destinations.append(
                    Destination(
                        label: "\"\(TerminalText.safe(peer.name))\"", endpoints: peer.endpoints,
                        expectedFingerprintPrefix: peer.fingerprintPrefix, wideArea: WideAreaTarget(peer)))
            case .failure(let failure):
                throw CLIError(failure.description + WideAreaTarget.note(warnings))
            }
        }
        return destinations
    }

    /// A peer verified under this name that now advertises another key is refused before any
    /// connection (the TLS check would refuse it too, but this says why).
    static func checkKnownKey(of peer: NearbyPeer, node: LocalNode) throws(CLIError) {
        let trust: TrustStore
        do {
            trust = try TrustStore.load(from: node.paths.configDirectory)
        } catch {
            throw CLIError(error.description)
        }
        guard let known = trust.peer(named: peer.name), let advertised = peer.fingerprintPrefix,
            !known.fingerprint.hasPrefix(advertised)
        else { return }
        throw CLIError(
            "the key of \"\(TerminalText.safe(peer.name))\" has changed since you verified it (verified "
                + "\(known.fingerprint.prefix(16)), now advertised \(advertised.prefix(16))): it may have been reinstalled, "
                + "or someone may be impersonating it. Nothing was sent. If you expected this, run "
                + "'share trust remove \(known.fingerprint.prefix(16))' and verify it again")
    }
}
