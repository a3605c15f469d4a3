import Dispatch
import Foundation
import ShareHTTP
import ShareDNS
import ShareLocalSend
import ShareTransport
import Synchronization

/// LocalSend's fallback discovery, only when asked (`share peers --scan`): `POST
/// /api/localsend/v2/register` over HTTPS to every other address of each IPv4 network this machine
/// is on (networks of at most ``maxAddresses`` addresses; a larger one is not scanned), 32 at a
/// time. A device that answers with its info is found; its fingerprint is the one its certificate
/// proves, not the one its answer claims.
public enum LocalSendScan {
    /// The largest network scanned (a /22).
    public static let maxAddresses = 1024
    /// Addresses asked at once.
    static let parallel = 32

    /// Scans, announcing this machine as `alias` with `identity`; returns the devices that answered
    /// and the networks too large to scan.
    public static func scan(
        alias: String, identity: LocalSendIdentity, timeout: Duration = .seconds(1)
    ) async -> (peers: [LocalSendPeer], skipped: [String]) {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: scanBlocking(alias: alias, identity: identity, timeout: timeout))
            }
        }
    }

    static func scanBlocking(alias: String, identity: LocalSendIdentity, timeout: Duration) -> (peers: [LocalSendPeer], skipped: [String]) {
        var targets: [String] = []
        var skipped: [String] = []
        let networks = LocalAddresses.routable().filter { $0.bytes.count == 4 }
        let own = Set(networks.map(\.text))
        for entry in networks {
            let hostBits = 32 - entry.prefixLength
            guard hostBits >= 2, 1 << hostBits <= maxAddresses else {
                if hostBits >= 2 { skipped.append("\(entry.text)/\(entry.prefixLength)") }
                continue
            }
            let address = entry.bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let network = address & ~UInt32((1 << hostBits) - 1)
            for host in 1..<UInt32((1 << hostBits) - 1) {
                let value = network | host
                let text = "\(value >> 24).\(value >> 16 & 255).\(value >> 8 & 255).\(value & 255)"
                if !own.contains(text) && !targets.contains(text) { targets.append(text) }
            }
        }
        let addresses = targets
        let body = identity.device(alias: alias, port: LocalSendDevice.defaultPort, announce: nil, looksOnly: true)
        let found = Mutex<[String: LocalSendPeer]>([:])
        let next = Atomic<Int>(0)
        // Threads of their own (a connection waits up to `timeout` for an address nobody has):
        // GCD's concurrentPerform would run only as many at once as there are cores.
        let workers = min(parallel, addresses.count)
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<workers {
            Thread.detachNewThread {
                defer { done.signal() }
                while true {
                    let index = next.add(1, ordering: .relaxed).oldValue
                    guard index < addresses.count else { return }
                    let client = LocalSendClient(
                        endpoint: Endpoint(host: addresses[index], port: LocalSendDevice.defaultPort), label: addresses[index],
                        expectedFingerprint: nil, timeout: timeout)
                    guard let (answer, fingerprint) = try? client.send("POST", "/api/localsend/v2/register", body: .json(body)),
                        answer.status == 200, let device = try? LocalSendDevice(json: answer.body), device.speaksVersion2,
                        !device.looksOnly, !device.shareReceiver, !LocalSendDevice.sameFingerprint(fingerprint, identity.fingerprint)
                    else { continue }
                    var peer = LocalSendPeer(device, address: addresses[index], port: LocalSendDevice.defaultPort)
                    // The certificate's fingerprint, not the one the answer claims.
                    peer.fingerprint = fingerprint
                    peer.https = true
                    found.withLock { $0[fingerprint.uppercased()] = peer }
                }
            }
        }
        for _ in 0..<workers { done.wait() }
        let peers = found.withLock { Array($0.values) }.sorted { $0.alias.lowercased() < $1.alias.lowercased() }
        return (peers, skipped)
    }
}
