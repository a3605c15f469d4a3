import ShareDocuments
import ShareTransport

extension SendDestination {
    /// Resolves every target on its own, browsing only when one is not an address: one unknown
    /// target does not stop the others.
    ///
    /// A target fails with ``SendDestinationError/isServiceUnavailable`` when a name needs
    /// avahi-daemon and it is unavailable; otherwise for an unknown or ambiguous name, or a verified
    /// name that another machine now answers to.
    public static func resolveEach(_ targets: [String], node: LocalNode) async -> [Result<SendDestination, SendDestinationError>] {
        let trust: TrustStore
        do {
            trust = try TrustStore.load(from: node.paths.configDirectory)
        } catch {
            return targets.map { _ in .failure(SendDestinationError(error.description)) }
        }
        var peers: [NearbyPeer] = []
        var warnings: [String] = []
        var browseFailure: SendDestinationError?
        let names = targets.filter { address($0) == nil }
        if !names.isEmpty {
            do {
                // The local network through Avahi, and the wide-area DNS domains (docs/WIDE-AREA.md).
                let sightings = try await NearbyPeers.look(settings: node.settings, timeout: .seconds(5))
                warnings = sightings.warnings
                peers = try NearbyPeers.peers(sightings, node: node)
            } catch let error as PeerDiscoveryError {
                browseFailure = SendDestinationError(
                    "cannot look up \(names.map { "'\(DisplayText.escape($0))'" }.joined(separator: ", ")): \(error) "
                        + "Sending to HOST:PORT works without it.",
                    isServiceUnavailable: error.isDaemonUnavailable,
                    outcome: error.isDaemonUnavailable ? "unavailable" : "failed")
            } catch {
                browseFailure = SendDestinationError("\(error)")
            }
        }
        return targets.map { target in
            if let endpoint = address(target) {
                return .success(
                    SendDestination(
                        target: target, label: endpoint.description, endpoints: [endpoint], expectedKey: nil, isAddress: true))
            }
            if let browseFailure { return .failure(browseFailure) }
            return resolve(target, among: peers, trust: trust).mapError {
                SendDestinationError(
                    $0.message + WideAreaTarget.note(warnings), isServiceUnavailable: $0.isServiceUnavailable,
                    outcome: $0.outcome)
            }
        }
    }

    /// The receiver on the local host `target` names (`desk.local[:PORT]`), found among the services
    /// Avahi sees, so no nss-mdns is needed; its advertised key must answer, as for a name.
    static func destination(onHost host: String, port: UInt16?, target: String, among peers: [NearbyPeer])
        -> Result<SendDestination, SendDestinationError>
    {
        let matches = peers.filter { peer in
            var name = Substring(peer.host.lowercased())
            if name.hasSuffix(".") { name = name.dropLast() }
            return name == host && (port == nil || peer.port == port)
        }
        guard matches.count == 1, let peer = matches.first else {
            if matches.isEmpty {
                return .failure(
                    SendDestinationError(
                        "no receiver on the host '\(DisplayText.escape(host))'\(port.map { " at port \($0)" } ?? "") is visible "
                            + "nearby; check that 'share receive' runs there, or use its address (HOST:PORT)",
                        outcome: "notFound"))
            }
            return .failure(
                SendDestinationError(
                    "several receivers run on '\(DisplayText.escape(host))': "
                        + matches.map { "\"\(DisplayText.escape($0.name))\" on port \($0.port)" }.joined(separator: ", ")
                        + "; give the port (\(DisplayText.escape(host)):PORT) or the name",
                    outcome: "ambiguous"))
        }
        if let reason = peer.incompatibility {
            return .failure(SendDestinationError(PeerResolver.Failure.incompatible(name: peer.name, reason: reason).description))
        }
        guard let prefix = peer.fingerprintPrefix else {
            return .failure(SendDestinationError(PeerResolver.Failure.unverifiable(name: peer.name).description))
        }
        return .success(
            SendDestination(
                target: target, label: "\"\(DisplayText.escape(peer.name))\"", endpoints: peer.endpoints,
                expectedKey: .advertised(prefix: prefix, name: peer.name), isAddress: false, wideArea: WideAreaTarget(peer),
                peerName: peer.name))
    }

    /// Where the receiver `peer` goes when the user chose its row (`share send` without `--to`): to
    /// that service, and to the key the row showed, never to whatever its name means now. A row
    /// that advertises a verified key must present exactly that key (a different one is refused as
    /// a changed key); any other row must present the key whose prefix it advertises.
    public static func chosen(_ peer: NearbyPeer) -> Result<SendDestination, SendDestinationError> {
        if let reason = peer.incompatibility {
            return .failure(SendDestinationError(PeerResolver.Failure.incompatible(name: peer.name, reason: reason).description))
        }
        guard let prefix = peer.fingerprintPrefix else {
            return .failure(SendDestinationError(PeerResolver.Failure.unverifiable(name: peer.name).description))
        }
        guard !peer.endpoints.isEmpty else {
            let ignored = peer.ignoredAddresses.map { "\($0.address): \($0.reason)" }
            return .failure(
                SendDestinationError(
                    PeerResolver.Failure.noUsableAddress(name: peer.name, ignored: ignored).description, outcome: "unreachable"))
        }
        let key: ExpectedKey =
            peer.claimsKeyOf.map { .verified(fingerprint: $0.fingerprint, name: $0.name) }
            ?? .advertised(prefix: prefix, name: peer.name)
        return .success(
            SendDestination(
                target: peer.name, label: "\"\(DisplayText.escape(peer.name))\"", endpoints: peer.endpoints, expectedKey: key,
                isAddress: false, wideArea: WideAreaTarget(peer), peerName: peer.name))
    }

    /// Where this destination is now, for a new attempt after its connection failed: a peer found
    /// by name is looked up again by its key (it may have a new address); HOST:PORT stays as it is
    /// (empty: keep the addresses).
    func refreshedEndpoints(node: LocalNode) async -> [Endpoint] {
        guard !isAddress, let key = expectedKey else { return [] }
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

    /// The peer `target` (a name, a fingerprint prefix, or a host of the local network) means among
    /// `peers`, as the trust store `trust` knows them.
    public static func resolve(_ target: String, among peers: [NearbyPeer], trust: TrustStore)
        -> Result<SendDestination, SendDestinationError>
    {
        if let (host, port) = localHost(target) {
            return destination(onHost: host, port: port, target: target, among: peers)
        }
        func found(_ peer: NearbyPeer, key: ExpectedKey) -> Result<SendDestination, SendDestinationError> {
            .success(
                SendDestination(
                    target: target, label: "\"\(DisplayText.escape(peer.name))\"", endpoints: peer.endpoints, expectedKey: key,
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
                    return .failure(SendDestinationError(notVisible(pins[0]), outcome: "notFound"))
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
                    SendDestinationError(
                        "you verified several machines as '\(DisplayText.escape(target))' and more than one is visible: "
                            + reachable.map { "\"\(DisplayText.escape($0.1.name))\" (\(FingerprintText.short($0.0.fingerprint)))" }
                            .joined(separator: ", ") + "; use a fingerprint prefix", outcome: "ambiguous"))
            }
            let folded = target.lowercased()
            if let impostor = peers.first(where: { $0.name.lowercased() == folded }) {
                let prefix = impostor.fingerprintPrefix.map { String($0.prefix(16)) } ?? "none"
                return .failure(
                    SendDestinationError(
                        "another machine now answers to '\(DisplayText.escape(target))' (fingerprint \(FingerprintText.short(prefix))); "
                            + "the '\(DisplayText.escape(pins[0].name))' you verified (\(FingerprintText.short(pins[0].fingerprint))) "
                            + "is not visible nearby. Nothing was sent, and your verified peer's trust is untouched. To send to the "
                            + "other machine, use --to \(prefix)", outcome: "identityMismatch"))
            }
            return .failure(SendDestinationError(notVisible(pins[0]), outcome: "notFound"))
        }
        switch PeerResolver.resolve(target, among: peers) {
        case .success(let peer):
            return found(peer, key: .advertised(prefix: peer.fingerprintPrefix ?? "", name: peer.name))
        case .failure(let failure):
            return .failure(SendDestinationError(failure.description, outcome: failure.outcome))
        }
    }

    private static func notVisible(_ pin: TrustStore.Peer) -> String {
        "the peer you verified as '\(DisplayText.escape(pin.name))' (\(FingerprintText.short(pin.fingerprint))) is not "
            + "visible nearby; check that 'share receive' runs there, or use --to HOST:PORT"
    }
}
