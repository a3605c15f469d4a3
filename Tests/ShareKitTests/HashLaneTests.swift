import Foundation
import ShareTLS
import ShareTestSupport
import Testing

@testable import ShareKit

/// A large file's SHA-256 computed on a thread of its own: the same digest as hashing in place, and
/// no thread left behind.
@Suite(.serialized) struct HashLaneTests {
    /// Arrays of uneven sizes, more than the lane may hold at once (so adding waits for it).
    private static let pieces: [[UInt8]] = (0..<12).map { index in
        (0..<(index % 3 + 1) * 300_007).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
    }

    @Test func theDigestIsTheHashOfEveryArrayInOrderAfterWhatWasHeld() {
        var held = SHA256()
        held.update(Array("the part the receiver held".utf8))
        var expected = held
        for piece in Self.pieces { expected.update(piece) }

        let lane = HashLane(continuing: held, name: "share.hashtest")
        for piece in Self.pieces { lane.update(piece) }
        #expect(lane.finalize() == expected.finalize())
    }

    @Test func aLaneEndsItsThreadWhenFinishedOrDropped() async throws {
        let finished = HashLane(name: "share.hashtest")
        finished.update(Self.pieces[0])
        #expect(await waitUntil { Self.threads(named: "share.hashtest") == 1 })
        _ = finished.finalize()
        var dropped: HashLane? = HashLane(name: "share.hashtest")
        dropped?.update(Self.pieces[1])
        #expect(await waitUntil { Self.threads(named: "share.hashtest") >= 1 })
        dropped = nil
        #expect(await waitUntil { Self.threads(named: "share.hashtest") == 0 }, "a lane's thread outlived it")
    }

    /// Threads of this process with the name `name`.
    private static func threads(named name: String) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { task in
            let comm = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            return comm.trimmingCharacters(in: .newlines) == name
        }.count
    }
}
