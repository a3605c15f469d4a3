import Foundation
import ShareKit
import ShareTestSupport
import Testing

/// A receiver whose disk fills up in the middle of a transfer (a small tmpfs, ShareTestSupport's
/// SmallFilesystem; needs root, and fails instead of skipping under SHARE_REQUIRE_NETNS=1).
@Suite(.serialized, .enabled(if: SmallFilesystem.shouldRun, Comment(rawValue: SmallFilesystem.skipReason)))
struct DiskFullTests {
    @Test func aDiskThatFillsDuringATransferFailsItCleanlyAndTheRetryWorksOnceSpaceIsFreed() async throws {
        let disk = try SmallFilesystem(size: 16 << 20)
        // Identity, inbox (where transfers are staged) and receive folder: all on the small disk.
        let harness = try ReceiverHarness(in: disk.directory, configure: { $0.freeSpaceMargin = 0 })
        defer { harness.stop() }
        let dir = TemporaryDirectory("diskfull-sender")
        let sender = try TestSender(in: dir)
        FileTree.writeFile(dir.at("video.bin"), size: 3 << 20, seed: 11)
        // The first connection pauses inside the file's data; the disk fills while it waits.
        let proxy = try FaultProxy(toHost: "127.0.0.1", port: Int(harness.receiver.port))
        proxy.schedule(connection: 0, upstream: .init(stallAfter: 5 << 19))
        let sending = Task { try await sender.send([dir.at("video.bin")], toEndpoint: proxy.endpoint) }
        try await proxy.waitForBytes(.upstream, atLeast: 5 << 19)
        #expect(await waitUntil { stagedBytes(in: harness.inbox) >= 2 << 20 }, "two chunks reach the disk")
        try disk.fill()
        proxy.resume()

        // The sender is told the receiver failed for lack of space; what was written is kept.
        do {
            _ = try await sending.value
            Issue.record("the transfer succeeded on a full disk")
        } catch {
            #expect("\(error)".contains("the receiver could not store the files (No space left on device)"), "\(error)")
        }
        let failure = try #require(await harness.nextFailure(), "the receiver reports a failure")
        #expect("\(failure)".contains("No space left on device"), "\(failure)")
        #expect(leftovers(harness.destination).isEmpty, "nothing under a final name")
        #expect(inboxEntries(harness.inbox).isEmpty, "nothing in the inbox but staging")
        let kept = PartialStore(inbox: harness.inbox).list()
        #expect(kept.count == 1 && kept[0].heldBytes > 0, "the part written is kept: \(kept)")

        // Space comes back; the next try continues from what was written instead of starting over.
        try disk.free()
        let report = try await sender.send([dir.at("video.bin")], toEndpoint: proxy.endpoint)
        #expect(report.resumedBytes > 0, "resumed \(report.resumedBytes)")
        #expect(FileTree.digest(harness.destination + "/video.bin") == FileTree.digest(dir.at("video.bin")))
        #expect(proxy.connections.count == 2)
    }

    @Test func theSmallFilesystemFillsAndFrees() throws {
        let disk = try SmallFilesystem(size: 4 << 20)
        #expect(disk.freeBytes > 3 << 20)
        try disk.fill(leaving: 64 << 10)
        #expect(disk.freeBytes <= 64 << 10)
        #expect(!FileManager.default.createFile(atPath: disk.at("big"), contents: Data(count: 128 << 10)))
        try disk.free()
        #expect(disk.freeBytes > 3 << 20)
        let path = disk.path
        disk.unmount()
        #expect(!(try String(contentsOfFile: "/proc/self/mounts", encoding: .utf8)).contains(path))
    }
}
