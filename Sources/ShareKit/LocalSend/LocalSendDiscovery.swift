import ShareDNS
import ShareLocalSend
import ShareTransport

/// Finds LocalSend devices on the local network as the LocalSend protocol (v2) does: it joins the
/// multicast group 224.0.0.167 on UDP 53317 on every IPv4 interface, announces this machine
/// (`"announce": true`), and collects the devices that announce themselves or answer. Devices answer
/// an announcement with `POST /register` to the announcer's server and, when that fails (as it
/// does while no `share receive --localsend` runs here), with a multicast `"announce": false`.
///
/// It needs no daemon (no Avahi). It never scans addresses. Its announcement carries share's
/// extension `"shareLooksOnly": true` (LocalSend apps ignore unknown fields), and announcements that
/// carry it are not listed: another share only looking is not a device to send to.
public enum LocalSendDiscovery {
    /// Why LocalSend discovery could not run at all.
    public struct Unavailable: Error, Sendable, CustomStringConvertible {
        /// What happened.
        public var description: String
    }

    /// ``look(alias:identity:port:timeout:)`` as `node`: its device name, and its LocalSend identity
    /// (created on first use).
    public static func look(node: LocalNode, timeout: Duration) async throws(Unavailable) -> [LocalSendPeer] {
        try await look(alias: node.deviceName(), identity: try identity(of: node), timeout: timeout)
    }

    /// `node`'s LocalSend identity (created on first use).
    static func identity(of node: LocalNode) throws(Unavailable) -> LocalSendIdentity {
        do {
            return try LocalSendIdentity.loadOrCreate(configDirectory: node.paths.configDirectory)
        } catch {
            throw Unavailable(description: "cannot load this machine's LocalSend identity: \(error)")
        }
    }

    /// A member of LocalSend's multicast group on every IPv4 interface with an address.
    static func joinGroup() throws(Unavailable) -> MulticastSocket {
        let interfaces = LocalAddresses.routable().filter { $0.bytes.count == 4 }.map(\.bytes)
        let socket: MulticastSocket
        do {
            socket = try MulticastSocket(
                group: LocalSendDevice.multicastGroup, port: LocalSendDevice.defaultPort, interfaces: interfaces)
        } catch {
            throw Unavailable(description: "cannot listen for LocalSend devices: \(error)")
        }
        guard socket.joinedInterfaces > 0 else {
            socket.close()
            throw Unavailable(description: "cannot join LocalSend's multicast group 224.0.0.167 on any interface")
        }
        return socket
    }

    /// The device a datagram describes, unless it is not one to list: cut short, not a v2
    /// description, a share that only looks, a share receiver (reached with share's own protocol,
    /// never as an unverified LocalSend device), or this machine itself (fingerprint `own`).
    static func device(in datagram: MulticastSocket.Datagram, own: String) -> LocalSendPeer? {
        guard !datagram.truncated, let device = try? LocalSendDevice(json: datagram.bytes), device.speaksVersion2,
            !device.looksOnly, !device.shareReceiver, !LocalSendDevice.sameFingerprint(device.fingerprint, own)
        else { return nil }
        return LocalSendPeer(device, address: datagram.source, port: device.port)
    }

    /// ``look(node:timeout:)`` that never fails: the devices found, and why none could be looked for
    /// (nil when the look ran). A zero `timeout` does not look.
    public static func lookOrWarn(node: LocalNode, timeout: Duration) async -> (peers: [LocalSendPeer], problem: String?) {
        guard timeout > .zero else { return ([], nil) }
        do {
            return (try await look(node: node, timeout: timeout), nil)
        } catch {
            return ([], "LocalSend devices could not be looked for: \(error)")
        }
    }

    /// ``LocalSendScan/scan(alias:identity:timeout:)`` as `node`; nothing when its identity cannot be
    /// loaded.
    public static func scanOrWarn(node: LocalNode) async -> (peers: [LocalSendPeer], skipped: [String]) {
        guard let identity = try? identity(of: node) else { return ([], []) }
        return await LocalSendScan.scan(alias: node.deviceName(), identity: identity)
    }

    /// Announces this machine and lists the LocalSend devices heard within `timeout` (the last
    /// message of each fingerprint wins; this machine's own is left out).
    ///
    /// - Parameters:
    ///   - alias: the name this machine announces.
    ///   - identity: its LocalSend identity (the fingerprint devices will see).
    ///   - port: the port this machine's LocalSend server would listen on.
    public static func look(
        alias: String, identity: LocalSendIdentity, port: UInt16 = 53317, timeout: Duration
    ) async throws(Unavailable) -> [LocalSendPeer] {
        try await BlockingWork.run("share.localsend-discovery") { () throws(Unavailable) -> [LocalSendPeer] in
            try lookBlocking(alias: alias, identity: identity, port: port, timeout: timeout)
        }
    }

    static func lookBlocking(
        alias: String, identity: LocalSendIdentity, port: UInt16, timeout: Duration
    ) throws(Unavailable) -> [LocalSendPeer] {
        guard LocalAddresses.routable().contains(where: { $0.bytes.count == 4 }) else { return [] }
        let socket = try joinGroup()
        defer { socket.close() }
        let announcement = identity.device(alias: alias, port: port, announce: true, looksOnly: true)
        let start = ContinuousClock.now
        // Announced again after a second, as LocalSend apps do: a datagram can be lost.
        var announceAt: [ContinuousClock.Instant] = [start, start + .seconds(1)]
        var peers: [String: LocalSendPeer] = [:]
        while ContinuousClock.now - start < timeout {
            if let next = announceAt.first, ContinuousClock.now >= next {
                announceAt.removeFirst()
                socket.sendToGroup(announcement)
            }
            let untilAnnounce = announceAt.first.map { $0 - ContinuousClock.now } ?? timeout
            let wait = min(timeout - (ContinuousClock.now - start), max(.milliseconds(10), untilAnnounce))
            guard let datagram = socket.receive(limit: LocalSendLimits.messageBytes, timeout: wait),
                let peer = device(in: datagram, own: identity.fingerprint)
            else { continue }
            peers[peer.fingerprint.uppercased()] = peer
        }
        return peers.values.sorted { $0.alias.lowercased() < $1.alias.lowercased() }
    }
}
