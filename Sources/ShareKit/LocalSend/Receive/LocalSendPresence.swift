import Foundation
import ShareHTTP
import ShareLocalSend
import ShareTransport
import Synchronization

/// Makes a LocalSend receiver visible as LocalSend devices expect: it joins the multicast group
/// 224.0.0.167 on UDP 53317, announces itself (`"announce": true`) when it starts and again after one
/// and three seconds, and answers each device that announces itself: with `POST /register` to that
/// device's server, or, when that fails (a device that only looks, like `share peers`), with a
/// multicast `"announce": false`. A device is answered at most once every ``answerInterval``.
final class LocalSendPresence: Sendable {
    /// The least time between two answers to the same device.
    static let answerInterval: Duration = .seconds(2)
    /// Answers in progress at once; announcements beyond them are not answered.
    static let maxAnswers = 4

    private let identity: LocalSendIdentity
    private let alias: String
    private let stopped = WakeSignal()
    private let answering = Atomic<Int>(0)
    private let socket = Mutex<MulticastSocket?>(nil)

    init(identity: LocalSendIdentity, alias: String) {
        self.identity = identity
        self.alias = alias
    }

    /// Starts announcing the server at `port` (on its own thread); a machine without an IPv4 address
    /// or multicast announces nothing (LocalSend devices can still send to `localsend://HOST:PORT`).
    func start(port: UInt16) {
        guard let joined = try? LocalSendDiscovery.joinGroup() else { return }
        socket.withLock { $0 = joined }
        BlockingWork.start("share.localsend-presence") { [self] in run(joined, port: port) }
    }

    /// Stops announcing.
    func stop() {
        stopped.signal()
    }

    private func run(_ socket: MulticastSocket, port: UInt16) {
        defer { socket.close() }
        let announcement = identity.device(alias: alias, port: port, announce: true, looksOnly: false)
        let answer = identity.device(alias: alias, port: port, announce: false, looksOnly: false)
        let start = ContinuousClock.now
        var announceAt = [start, start + .seconds(1), start + .seconds(3)]
        var answered: [String: ContinuousClock.Instant] = [:]
        while !stopped.isSignalled {
            let now = ContinuousClock.now
            if let next = announceAt.first, now >= next {
                announceAt.removeFirst()
                socket.sendToGroup(announcement)
            }
            let wait = min(max(.milliseconds(10), (announceAt.first ?? now + .milliseconds(500)) - now), .milliseconds(500))
            guard let datagram = socket.receive(limit: LocalSendLimits.messageBytes, timeout: wait), !datagram.truncated,
                let device = try? LocalSendDevice(json: datagram.bytes), device.announce == true, device.speaksVersion2,
                !LocalSendDevice.sameFingerprint(device.fingerprint, identity.fingerprint)
            else { continue }
            let key = device.fingerprint.uppercased()
            if let last = answered[key], now - last < Self.answerInterval { continue }
            answered = answered.filter { now - $0.value < Self.answerInterval }
            answered[key] = now
            guard answering.add(1, ordering: .acquiringAndReleasing).newValue <= Self.maxAnswers else {
                answering.subtract(1, ordering: .acquiringAndReleasing)
                continue
            }
            let peer = LocalSendPeer(device, address: datagram.source, port: device.port)
            let register = identity.device(alias: alias, port: port, announce: nil, looksOnly: false)
            BlockingWork.start("share.localsend-answer") { [self] in
                defer { answering.subtract(1, ordering: .acquiringAndReleasing) }
                if !Self.register(register, at: peer) { socket.sendToGroup(answer) }
            }
        }
    }

    /// Tells `peer` about this receiver with `POST /register`; whether it took it.
    private static func register(_ device: [UInt8], at peer: LocalSendPeer) -> Bool {
        guard peer.https else { return false }
        let client = LocalSendClient(
            endpoint: LocalSendTarget(peer).endpoint, label: "\"\(peer.alias)\"", expectedFingerprint: peer.fingerprint, timeout: .seconds(2))
        guard let (answer, _) = try? client.send("POST", "/api/localsend/v2/register", body: .json(device)) else { return false }
        return answer.status == 200
    }
}
