import Foundation
import ShareTestSupport
import Testing

/// `share receive --accept all --json` into `folder` as one machine, with a fault proxy in front
/// of it (the fault lab, Tests/Hosts/README.md): senders go to ``proxy``'s endpoint.
final class ProxiedReceiver {
    /// Where received documents land.
    let folder: String
    /// The running receiver.
    let receiver: RunningShare
    /// The port it listens on (behind the proxy).
    let port: UInt16
    /// The proxy in front of it.
    let proxy: FaultProxy

    init(_ machine: TestMachine, folder: String) async throws {
        self.folder = folder
        receiver = machine.start(["receive", "--port", "0", "--dir", folder, "--accept", "all", "--json"])
        port = try #require(await receiver.listeningPort())
        proxy = try FaultProxy(toHost: "127.0.0.1", port: Int(port))
    }

    /// The same receiver command on the same port (after the first one was killed).
    func restart(_ machine: TestMachine) -> RunningShare {
        machine.start(["receive", "--port", String(port), "--dir", folder, "--accept", "all", "--json"])
    }

    /// Ends the receiver and the proxy.
    func stop() {
        receiver.forceKill()
        proxy.stop()
    }
}
