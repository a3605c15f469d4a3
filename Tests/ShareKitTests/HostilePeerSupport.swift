import Foundation
import ShareDocuments
import ShareKit
import ShareTLS
import ShareTestSupport
import ShareTransport
import ShareWire
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A deliberately misbehaving sender: a real TLS client (with a valid certificate unless told
/// otherwise) that can write any bytes and reads what the receiver answers.
struct HostileSender {
    let identity: Identity

    init(in directory: TemporaryDirectory) throws {
        identity = try Identity.loadOrCreate(in: directory.at("hostile-config"))
    }

    /// Connects over TLS to `endpoint`.
    func connect(_ endpoint: String, context: TLSContext? = nil) throws -> SecureConnection {
        let context = try context ?? TLSContext.client(identity: identity)
        let connection = try SecureConnection.connect(to: Endpoint(parsing: endpoint)!, context: context)
        connection.setTimeouts(receive: .seconds(20), send: .seconds(20))
        return connection
    }

    /// Writes `bytes` after a valid HELLO and returns the ERROR the receiver answers with.
    func sendAfterHello(_ bytes: [UInt8], to endpoint: String) throws -> PeerError? {
        let connection = try connect(endpoint)
        defer { connection.close() }
        try? connection.writeRaw(FrameEncoder.encode(.hello(Hello(name: "mallory"))) + bytes)
        return Self.firstError(from: connection)
    }

    /// Reads frames until an ERROR (returned) or the end.
    static func firstError(from connection: SecureConnection) -> PeerError? {
        while true {
            guard let frame = try? connection.receive() else { return nil }
            if case .error(let error) = frame { return error }
        }
    }
}

/// Hand-encodes an OFFER with entries the validating encoder would refuse.
enum RawOffer {
    struct Entry {
        var kind: UInt8 = 1
        var path: String
        var mode: UInt16 = 0o644
        var size: UInt64 = 0
        var target: String = ""
        var type: String = ""
    }

    static func frame(_ entries: [Entry], total: UInt64? = nil, count: UInt32? = nil) -> [UInt8] {
        var payload = ByteWriter()
        payload.u32(count ?? UInt32(entries.count))
        payload.u64(total ?? entries.reduce(0) { $0 + $1.size })
        return encode(entries, after: payload, as: .offer)
    }

    /// An ENTRIES frame: the next entries of an offer.
    static func entriesFrame(_ entries: [Entry]) -> [UInt8] {
        encode(entries, after: ByteWriter(), as: .entries)
    }

    private static func encode(_ entries: [Entry], after header: ByteWriter, as type: FrameType) -> [UInt8] {
        var payload = header
        for entry in entries {
            payload.u8(entry.kind)
            payload.u16(UInt16(entry.path.utf8.count))
            payload.raw(Array(entry.path.utf8))
            payload.u16(entry.mode)
            payload.i64(0)
            payload.u32(0)
            payload.u64(entry.size)
            payload.str16(entry.target)
            payload.str8(entry.type)
        }
        var frame: [UInt8] = []
        FrameEncoder.appendHeader(type, length: payload.bytes.count, to: &frame)
        return frame + payload.bytes
    }
}

/// What a hostile test checks around every case: the canary folder beside the receive folder is
/// untouched, nothing is left in the receive folder (no partial file under a final name, no
/// staging), and an honest transfer running at the same time completes with the right hash.
struct HostileScene {
    let dir: TemporaryDirectory
    let harness: ReceiverHarness
    let canary: String
    private let canaryBefore: [String]
    private let topBefore: [String]

    init(_ label: String, configure: (inout ReceiverConfiguration) -> Void = { _ in }) throws {
        dir = TemporaryDirectory(label)
        canary = dir.at("canary")
        FileTree.makeFolder(canary + "/.ssh")
        FileTree.writeText(canary + "/.bashrc", "# the user's shell\n")
        FileTree.writeText(canary + "/.ssh/authorized_keys", "ssh-ed25519 AAAA user\n")
        harness = try ReceiverHarness(in: dir, idleTimeout: .seconds(5), configure: configure)
        canaryBefore = FileTree.describe(canary)
        topBefore = (try? FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()) ?? []
    }

    /// The next outcome that is not the honest transfer's.
    func hostileOutcome(timeout: Duration = .seconds(30)) -> IncomingOutcome? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let outcome = harness.nextOutcome(timeout: deadline - ContinuousClock.now) else { return nil }
            if case .received(let transfer) = outcome, transfer.items.map(\.name) == ["honest.bin"] { continue }
            return outcome
        }
        return nil
    }

    /// The reason of a refused connection, or the failure of a transfer.
    func hostileOutcomeText(timeout: Duration = .seconds(30)) -> String {
        switch hostileOutcome(timeout: timeout) {
        case .refused(_, let reason): "refused: \(reason)"
        case .failed(_, _, _, let failure, _): "failed: \(failure)"
        case .declined(_, let decision): "declined: \(decision.code)"
        case .received(let transfer): "received: \(transfer.items.map(\.name))"
        case .paired: "paired"
        case .refusedSender(_, _, _, let decision, _): "refused sender: \(decision.code)"
        case nil: "nothing"
        }
    }

    /// Runs `hostile` while an honest sender sends a 20 MB file, then checks the invariants.
    func run(expectReceived: [String] = [], _ hostile: () throws -> Void) throws {
        FileTree.writeFile(dir.at("honest.bin"), size: 20_000_000, seed: 77)
        let sender = try TestSender(in: dir)
        let harness = self.harness
        let honest = BlockingResult<SendReport>()
        let honestPath = dir.at("honest.bin")
        Thread {
            honest.set(Result { try sender.send([honestPath], to: harness) })
        }.start()
        try hostile()
        let report = try honest.wait().get()
        #expect(report.files.first?.sha256 == hexDigest(of: dir.at("honest.bin")), "the honest transfer is intact")
        #expect(FileTree.describe(canary) == canaryBefore, "nothing written outside the receive folder")
        let top = ((try? FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()) ?? []).filter {
            !["received", "sender-config", "hostile-config", "honest.bin", "receiver-config"].contains($0)
        }
        #expect(top == topBefore.filter { !["received", "receiver-config"].contains($0) }, "no new files beside the receive folder")
        let left = FileTree.allPaths(harness.destination).filter { $0 != "honest.bin" }
        #expect(left == expectReceived, "no partial file under a final name, no staging left")
    }

}

/// A value set by one thread and awaited by another.
final class BlockingResult<T: Sendable>: @unchecked Sendable {
    // @unchecked: `value` is guarded by `condition`.
    private let condition = NSCondition()
    private var value: Result<T, any Error>?

    func set(_ result: Result<T, any Error>) {
        condition.lock()
        value = result
        condition.broadcast()
        condition.unlock()
    }

    func wait() -> Result<T, any Error> {
        condition.lock()
        defer { condition.unlock() }
        while value == nil { condition.wait() }
        return value!
    }
}
