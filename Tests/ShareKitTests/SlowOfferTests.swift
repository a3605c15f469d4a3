import Foundation
import ShareDocuments
import ShareKit
import ShareTestSupport
import ShareWire
import Testing

/// A large offer over a slow link arrives whole (docs/SECURITY.md, "until the offer" and "idle
/// while the offer's ENTRIES and data arrive"): the receiver counts bytes, not whole frames, and a
/// rate-limited sender sends at a steady pace. The settings are shortened so that the offer takes
/// longer than the receiver's silence timeout, in seconds rather than minutes.
@Suite struct SlowOfferTests {
    /// A folder whose files have long paths, so that a few hundred entries make an offer of more
    /// than 1 MiB (more than one ENTRIES frame).
    static func writeDeepFolder(in dir: TemporaryDirectory, files: Int) -> String {
        let component = String(repeating: "d", count: 240)
        var path = dir.at("Deep")
        for level in 0..<12 { path += "/\(level)" + component }
        FileTree.makeFolder(path)
        for index in 0..<files {
            FileTree.writeText(path + "/\(index)" + String(repeating: "f", count: 200), "")
        }
        return dir.at("Deep")
    }

    @Test func aLargeOfferOverARateLimitedLinkOutlastsTheSilenceTimeout() throws {
        let dir = TemporaryDirectory("slow-offer")
        let harness = try ReceiverHarness(in: dir, idleTimeout: .seconds(2), configure: { $0.handshakeTimeout = .seconds(2) })
        let folder = Self.writeDeepFolder(in: dir, files: 400)
        let prepared = try PreparedSend.scan([folder])
        let offerBytes = prepared.manifest.entries.indices.reduce(0) { $0 + prepared.manifest.entries.encodedSize(at: $1) }
        #expect(offerBytes > 1_200_000, "the offer spans more than one 1 MiB frame: \(offerBytes) bytes")
        var sender = try TestSender(in: dir)
        // About 4 s for the offer: twice the receiver's silence timeout, and its 1 MiB ENTRIES frame
        // alone takes longer than that to arrive.
        sender.options.rateLimit = 300_000
        let report = try sender.send([folder], to: harness)
        #expect(report.items.map(\.name) == ["Deep"])
        guard case .received(let transfer)? = harness.nextOutcome(timeout: .seconds(30)) else {
            Issue.record("the receiver did not report the transfer")
            return
        }
        #expect(transfer.items.map(\.name) == ["Deep"])
        #expect(FileTree.allPaths(harness.destination).count == 12 + 400 + 1)
    }

    @Test func aSendersOfferFrameIsSmallEnoughForTheDeadlineAtTheLeastRate() throws {
        let dir = TemporaryDirectory("slow-offer-frames")
        let prepared = try PreparedSend.scan([Self.writeDeepFolder(in: dir, files: 400)])
        let frames = OfferCodec.frames(for: prepared.manifest)
        guard case .offer(_, let first)? = frames.first else {
            Issue.record("the first frame is not an OFFER")
            return
        }
        let size = first.indices.reduce(12) { $0 + first.encodedSize(at: $1) }
        // 30 s to the offer's first frame, at 4 KiB/s (the least rate a receiver allows) at worst.
        #expect(size <= 64 << 10, "the OFFER frame carries \(size) bytes")
        #expect(frames.count > 2)
    }
}
