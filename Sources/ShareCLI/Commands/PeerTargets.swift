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
        let names = targets.filter { address($0) == nil }
        if !names.isEmpty {
            let services: [DiscoveredService]
            do {
                services = try await ServiceBrowser.snapshot(timeout: .seconds(5))
            } catch {
                throw CLIError(
                    "cannot look up \(names.map { "'\(TerminalText.safe($0))'" }.joined(separator: ", ")): \(error) "
                        + "Sending to HOST:PORT works without it.",
                    exitCode: error.isDaemonUnavailable ? ExitCode.unavailable : ExitCode.failure)
            }
            do {
                peers = try PeerDirectory.nearby(services, node: node)
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
                destinations.append(try destination(peer, node: node))
            case .failure(let failure):
                throw CLIError(failure.description)
            }
        }
        return destinations
    }

    /// Resolves `targets`; with none, lets the user choose receivers on the terminal
    /// (``PeerPicker``). Returns how each is named (for the history) and where each goes.
    static func resolveOrPick(
        _ targets: [String], console: Console, node: LocalNode
    ) async throws(CLIError) -> (names: [String], destinations: [Destination]) {
        guard targets.isEmpty else { return (targets, try await resolve(targets, node: node)) }
        try requireTerminal(console)
        let peers = try await PeerPicker.pick(console: console, node: node)
        return (peers.map(\.name), try peers.map { peer throws(CLIError) in try destination(peer, node: node) })
    }

    /// Choosing receivers needs a terminal: without one, a missing `--to` is a usage error.
    static func requireTerminal(_ console: Console) throws(CLIError) {
        guard console.stdinIsTerminal && console.stderrIsTerminal else {
            throw CLIError(
                usage: UsageError(
                    message: "Missing expected option '--to <peer>' (there is no terminal to choose receivers on)",
                    commandPath: ["share", "send"]))
        }
    }

    /// Where a peer found by name goes: its addresses, and the key it advertised.
    static func destination(_ peer: NearbyPeer, node: LocalNode) throws(CLIError) -> Destination {
        try checkKnownKey(of: peer, node: node)
        return Destination(
            label: "\"\(TerminalText.safe(peer.name))\"", endpoints: peer.endpoints, expectedFingerprintPrefix: peer.fingerprintPrefix)
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
