import Foundation
import ShareKit
import ShareTLS
import ShareTestSupport
import ShareTransport

/// A sender identity and the plumbing to send to a harness.
struct TestSender {
    let identity: Identity
    var options = SendOptions(deviceName: "laptop")

    init(in directory: TemporaryDirectory) throws {
        identity = try Identity.loadOrCreate(in: directory.at("sender-config"))
    }

    init(identity: Identity) {
        self.identity = identity
    }

    func send(_ paths: [String], to harness: ReceiverHarness) throws(SendError) -> SendReport {
        let prepared = try PreparedSend.scan(paths)
        return try Sender.send(prepared, to: Endpoint(parsing: harness.endpoint)!, identity: identity, options: options)
    }

    /// ``send(_:to:)`` on a thread of its own, without holding a thread of the cooperative pool.
    func send(_ paths: [String], to harness: ReceiverHarness) async throws(SendError) -> SendReport {
        let prepared = try PreparedSend.scan(paths)
        return try await Sender.sendAsync(
            prepared, toFirstOf: [Endpoint(parsing: harness.endpoint)!], identity: identity, options: options)
    }
}

/// The paths left in a receive folder, hidden ones included (staging leftovers would show).
func leftovers(_ folder: String) -> [String] {
    FileTree.allPaths(folder)
}
