import ShareKit
import ShareTransport

#if canImport(Glibc)
import Glibc
#endif

/// Turns what the user typed for `--to` (or `share trust verify`) into where to connect and which
/// key must answer there: a `HOST:PORT` as it is (any key; the trust store judges it), anything else
/// looked up through Avahi as a name or a fingerprint prefix.
///
/// A verified peer's name means that peer's key, wherever it is published and under whatever name
/// it is published now (`desk #2` after a collision): another machine that took the name is never
/// sent to in its place.
enum PeerTargets {
    /// Where one target goes.
    struct Destination: Sendable {
        /// The target exactly as the user gave it.
        var target: String
        /// How to name it in messages.
        var label: String
        /// Its addresses, best first.
        var endpoints: [Endpoint]
        /// The key that must answer there (nil: any; reached by address).
        var expectedKey: ExpectedKey?
        /// Whether the user gave an address rather than a name or fingerprint.
        var isAddress: Bool
        /// Set when it was seen in a wide-area domain: what a connection confirms (or forgets).
        var wideArea: WideAreaTarget? = nil
        /// The name it is published under now, when it was found by discovery.
        var peerName: String? = nil
    }

    /// `HOST:PORT` and `[IPV6]:PORT` are addresses, and so is an IP address alone (with the default
    /// port); anything else is looked up as a peer. A host of the local network (`desk.local`, with or
    /// without a port) is not an address here: it is found through Avahi (``localHost(_:)``).
    static func address(_ text: String) -> Endpoint? {
        if let literal = ipLiteral(text) { return Endpoint(host: literal, port: ReceiverConfiguration.defaultPort) }
        guard let endpoint = Endpoint(parsing: text), text.hasPrefix("[") || text.split(separator: ":").count == 2,
            localHost(text) == nil
        else {
            return nil
        }
        return endpoint
    }

    /// `192.168.1.20`, `fe80::1%eth0`, `[2001:db8::1]`: an IP address without a port.
    static func ipLiteral(_ text: String) -> String? {
        var host = Substring(text)
        if host.hasPrefix("[") && host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        let address = host.split(separator: "%", maxSplits: 1).first.map(String.init) ?? ""
        var buffer = [UInt8](repeating: 0, count: 16)
        guard inet_pton(AF_INET, address, &buffer) == 1 || inet_pton(AF_INET6, address, &buffer) == 1 else { return nil }
        return String(host)
    }

    /// `desk.local` or `desk.local:47321`: a host of the local network (as `share peers` shows it),
    /// its name folded and without a final dot, and the port if one was given.
    static func localHost(_ text: String) -> (host: String, port: UInt16?)? {
        var host = Substring(text)
        var port: UInt16?
        if let colon = host.lastIndex(of: ":"), let number = UInt16(host[host.index(after: colon)...]), number > 0 {
            port = number
            host = host[..<colon]
        }
        if host.hasSuffix(".") { host = host.dropLast() }
        let folded = host.lowercased()
        guard folded.hasSuffix(".local"), folded.count > ".local".count, !folded.contains(":") else { return nil }
        return (folded, port)
    }

    /// Resolves every target, browsing only when one is not an address.
    /// - Throws: exit 69 when a name needs avahi-daemon and it is unavailable; 1 for an unknown or
    ///   ambiguous name, or a verified name that another machine now answers to.
    static func resolve(_ targets: [String], node: LocalNode) async throws(CLIError) -> [Destination] {
        var results: [Destination] = []
        for result in await resolveEach(targets, node: node) {
            switch result {
            case .success(let destination): results.append(destination)
            case .failure(let error): throw error
            }
        }
        return results
    }

    /// Resolves `targets` each on its own (``resolveEach(_:node:)``); with none, lets the user
    /// choose receivers on the terminal (``PeerPicker``). Returns the targets (the chosen
    /// receivers' names) and where each goes.
    static func resolveOrPick(
        _ targets: [String], console: Console, node: LocalNode
    ) async throws(CLIError) -> (targets: [String], destinations: [Result<Destination, CLIError>]) {
        guard targets.isEmpty else { return (targets, await resolveEach(targets, node: node)) }
        try requireTerminal(console)
        let peers = try await PeerPicker.pick(console: console, node: node)
        let trust: TrustStore
        do {
            trust = try TrustStore.load(from: node.paths.configDirectory)
        } catch {
            throw CLIError(error.description)
        }
        // The peer chosen, by the name it showed: a name verified with another key is refused as usual.
        return (peers.map(\.name), peers.map { destination(for: $0.name, among: [$0], trust: trust) })
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

    /// Resolves every target on its own: one unknown target does not stop the others.
    static func resolveEach(_ targets: [String], node: LocalNode) async -> [Result<Destination, CLIError>] {
        let trust: TrustStore
        do {
            trust = try TrustStore.load(from: node.paths.configDirectory)
        } catch {
            return targets.map { _ in .failure(CLIError(error.description)) }
        }
        var peers: [NearbyPeer] = []
        var warnings: [String] = []
        var browseFailure: CLIError?
        let names = targets.filter { address($0) == nil }
        if !names.isEmpty {
            do {
                // The local network through Avahi, and the wide-area DNS domains (docs/WIDE-AREA.md).
                let sightings = try await NearbyPeers.look(settings: node.settings, timeout: .seconds(5))
                warnings = sightings.warnings
                peers = try NearbyPeers.peers(sightings, node: node)
            } catch let error as PeerDiscoveryError {
                browseFailure = CLIError(
                    "cannot look up \(names.map { "'\(TerminalText.safe($0))'" }.joined(separator: ", ")): \(error) "
                        + "Sending to HOST:PORT works without it.",
                    exitCode: error.isDaemonUnavailable ? ExitCode.unavailable : ExitCode.failure,
                    outcome: error.isDaemonUnavailable ? "unavailable" : "failed")
            } catch {
                browseFailure = CLIError("\(error)")
            }
        }
        return targets.map { target in
            if let endpoint = address(target) {
                return .success(
                    Destination(target: target, label: endpoint.description, endpoints: [endpoint], expectedKey: nil, isAddress: true))
            }
            if let browseFailure { return .failure(browseFailure) }
            return destination(for: target, among: peers, trust: trust).mapError {
                CLIError($0.message + WideAreaTarget.note(warnings), exitCode: $0.exitCode, outcome: $0.outcome)
            }
        }
    }

    /// The receiver on the local host `target` names (`desk.local[:PORT]`), found among the services
    /// Avahi sees, so no nss-mdns is needed; its advertised key must answer, as for a name.
    static func destination(onHost host: String, port: UInt16?, target: String, among peers: [NearbyPeer])
        -> Result<Destination, CLIError>
    {
        let matches = peers.filter { peer in
            var name = Substring(peer.host.lowercased())
            if name.hasSuffix(".") { name = name.dropLast() }
            return name == host && (port == nil || peer.port == port)
        }
        guard matches.count == 1, let peer = matches.first else {
            if matches.isEmpty {
                return .failure(
                    CLIError(
                        "no receiver on the host '\(TerminalText.safe(host))'\(port.map { " at port \($0)" } ?? "") is visible "
                            + "nearby; check that 'share receive' runs there, or use its address (HOST:PORT)",
                        outcome: "notFound"))
            }
            return .failure(
                CLIError(
                    "several receivers run on '\(TerminalText.safe(host))': "
                        + matches.map { "\"\(TerminalText.safe($0.name))\" on port \($0.port)" }.joined(separator: ", ")
                        + "; give the port (\(TerminalText.safe(host)):PORT) or the name",
                    outcome: "ambiguous"))
        }
        if let reason = peer.incompatibility {
            return .failure(CLIError(PeerResolver.Failure.incompatible(name: peer.name, reason: reason).description))
        }
        guard let prefix = peer.fingerprintPrefix else {
            return .failure(CLIError(PeerResolver.Failure.unverifiable(name: peer.name).description))
        }
        return .success(
            Destination(
                target: target, label: "\"\(TerminalText.safe(peer.name))\"", endpoints: peer.endpoints,
                expectedKey: .advertised(prefix: prefix, name: peer.name), isAddress: false, wideArea: WideAreaTarget(peer),
                peerName: peer.name))
    }

    /// Where `destination` is now, for a new attempt after its connection failed: a peer found by
    /// name is looked up again by its key (it may have a new address); HOST:PORT stays as it is
    /// (empty: keep the addresses).
    static func refreshEndpoints(_ destination: Destination, node: LocalNode) async -> [Endpoint] {
        guard !destination.isAddress, let key = destination.expectedKey else { return [] }
        let lookup = try? await NearbyPeers.look(settings: node.settings, timeout: .seconds(3))
        guard let sightings = lookup,
            let peers = try? NearbyPeers.peers(sightings, node: node)
        else { return [] }
        let matches = peers.filter { peer in
            guard let prefix = peer.fingerprintPrefix, peer.incompatibility == nil else { return false }
            switch key {
            case .advertised(let advertised, _): return prefix == advertised
            case .verified(let fingerprint, _): return fingerprint.hasPrefix(prefix)
            }
        }
        return matches.first?.endpoints ?? []
    }

    /// The peer `target` (a name or a fingerprint prefix) means among `peers`.
    static func destination(for target: String, among peers: [NearbyPeer], trust: TrustStore) -> Result<Destination, CLIError> {
        if let (host, port) = localHost(target) {
            return destination(onHost: host, port: port, target: target, among: peers)
        }
        func found(_ peer: NearbyPeer, key: ExpectedKey) -> Result<Destination, CLIError> {
            .success(
                Destination(
                    target: target, label: "\"\(TerminalText.safe(peer.name))\"", endpoints: peer.endpoints, expectedKey: key,
                    isAddress: false, wideArea: WideAreaTarget(peer), peerName: peer.name))
        }
        func visible(_ pin: TrustStore.Peer) -> NearbyPeer? {
            peers.first { peer in peer.fingerprintPrefix.map { pin.fingerprint.hasPrefix($0) } ?? false }
        }
        // A verified peer by its fingerprint.
        if let hex = TrustStore.hexDigits(of: target), hex.count >= TrustStore.minimumLookupPrefix {
            let pins = trust.peers.filter { $0.fingerprint.hasPrefix(hex) }
            if pins.count == 1 {
                guard let peer = visible(pins[0]) else {
                    return .failure(CLIError(notVisible(pins[0]), outcome: "notFound"))
                }
                return found(peer, key: .verified(fingerprint: pins[0].fingerprint, name: pins[0].name))
            }
        }
        // A verified peer by the name it was verified under.
        let pins = trust.peers(named: target)
        if !pins.isEmpty {
            let reachable = pins.compactMap { pin in visible(pin).map { (pin, $0) } }
            if reachable.count == 1 {
                return found(reachable[0].1, key: .verified(fingerprint: reachable[0].0.fingerprint, name: reachable[0].0.name))
            }
            if reachable.count > 1 {
                return .failure(
                    CLIError(
                        "you verified several machines as '\(TerminalText.safe(target))' and more than one is visible: "
                            + reachable.map { "\"\(TerminalText.safe($0.1.name))\" (\(TrustCommandSupport.short($0.0.fingerprint)))" }
                            .joined(separator: ", ") + "; use a fingerprint prefix", outcome: "ambiguous"))
            }
            let folded = target.lowercased()
            if let impostor = peers.first(where: { $0.name.lowercased() == folded }) {
                let prefix = impostor.fingerprintPrefix.map { String($0.prefix(16)) } ?? "none"
                return .failure(
                    CLIError(
                        "another machine now answers to '\(TerminalText.safe(target))' (fingerprint \(TrustCommandSupport.short(prefix))); "
                            + "the '\(TerminalText.safe(pins[0].name))' you verified (\(TrustCommandSupport.short(pins[0].fingerprint))) "
                            + "is not visible nearby. Nothing was sent, and your verified peer's trust is untouched. To send to the "
                            + "other machine, use --to \(prefix)", outcome: "identityMismatch"))
            }
            return .failure(CLIError(notVisible(pins[0]), outcome: "notFound"))
        }
        switch PeerResolver.resolve(target, among: peers) {
        case .success(let peer):
            return found(peer, key: .advertised(prefix: peer.fingerprintPrefix ?? "", name: peer.name))
        case .failure(let failure):
            return .failure(CLIError(failure.description, outcome: failure.outcome))
        }
    }

    private static func notVisible(_ pin: TrustStore.Peer) -> String {
        "the peer you verified as '\(TerminalText.safe(pin.name))' (\(TrustCommandSupport.short(pin.fingerprint))) is not "
            + "visible nearby; check that 'share receive' runs there, or use --to HOST:PORT"
    }
}
