import Foundation
import ShareLocalSend
import ShareTransport
import Synchronization

/// LocalSend devices as they appear and go, for `share peers --watch`: announces this machine at
/// once, after 1 and 3 s and then every ``announceInterval`` (devices answer each announcement), and
/// forgets a device not heard from for ``forgetAfter`` (LocalSend has no goodbye). Runs on a thread
/// of its own until ``close()``.
public final class LocalSendWatch: Sendable {
    /// A change in what is seen.
    public enum Event: Sendable {
        /// A device was heard for the first time, or changed (name, address, port).
        case appeared(LocalSendPeer)
        /// A device was not heard from for ``forgetAfter``.
        case disappeared(LocalSendPeer)
    }

    /// The changes, as they happen; ends after ``close()``.
    public let events: AsyncStream<Event>
    /// How long a silent device is still listed (75 s, or what the caller chose).
    public let forgetAfter: Duration
    private let socket: MulticastSocket
    private let closed = Flag()

    /// Set once, read by the watching thread.
    private final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        var isSet: Bool { value.load(ordering: .acquiring) }
        /// Sets it; returns whether it was set before.
        func set() -> Bool { value.exchange(true, ordering: .acquiringAndReleasing) }
    }

    /// How often this machine announces itself while watching.
    public var announceInterval: Duration { min(.seconds(30), forgetAfter / 2.5) }

    /// Starts watching as `node`.
    public init(node: LocalNode, forgetAfter: Duration = .seconds(75)) throws(LocalSendDiscovery.Unavailable) {
        let identity = try LocalSendDiscovery.identity(of: node)
        socket = try LocalSendDiscovery.joinGroup()
        self.forgetAfter = forgetAfter
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self)
        events = stream
        let announcement = identity.device(alias: node.deviceName(), port: LocalSendDevice.defaultPort, announce: true, looksOnly: true)
        let socket = self.socket
        let closed = self.closed
        let interval = min(.seconds(30), forgetAfter / 2.5)
        Thread.detachNewThread {
            Self.run(
                socket: socket, announcement: announcement, own: identity.fingerprint, interval: interval,
                forgetAfter: forgetAfter, closed: closed, continuation: continuation)
        }
    }

    deinit { close() }

    /// Stops watching; ``events`` ends.
    public func close() {
        guard !closed.set() else { return }
        socket.close()
    }

    private static func run(
        socket: MulticastSocket, announcement: [UInt8], own: String, interval: Duration, forgetAfter: Duration,
        closed: Flag, continuation: AsyncStream<Event>.Continuation
    ) {
        defer { continuation.finish() }
        let start = ContinuousClock.now
        var announceAt = [start, start + .seconds(1), start + .seconds(3)]
        var seen: [String: (peer: LocalSendPeer, heard: ContinuousClock.Instant)] = [:]
        while !closed.isSet {
            let now = ContinuousClock.now
            if let next = announceAt.first, now >= next {
                announceAt.removeFirst()
                if announceAt.isEmpty { announceAt.append(now + interval) }
                socket.sendToGroup(announcement)
            }
            for (key, entry) in seen where now - entry.heard >= forgetAfter {
                seen[key] = nil
                continuation.yield(.disappeared(entry.peer))
            }
            let wait = min(max(.milliseconds(10), (announceAt.first ?? now + interval) - now), .milliseconds(500))
            guard let datagram = socket.receive(limit: LocalSendLimits.messageBytes, timeout: wait),
                let peer = LocalSendDiscovery.device(in: datagram, own: own)
            else { continue }
            let key = peer.fingerprint.uppercased()
            let before = seen[key]?.peer
            seen[key] = (peer, .now)
            if before != peer { continuation.yield(.appeared(peer)) }
        }
    }
}
