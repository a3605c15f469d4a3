import Foundation
import ShareDocuments
import ShareTestSupport
import ShareTransport
import ShareWire
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// An offer of a million entries (a photo library, a `node_modules`) against the real
/// `share receive`: it is read, checked as a whole (no path twice, folders first) and answered
/// within the memory docs/PERFORMANCE.md promises, and one entry more is refused with a message
/// that says why. A real TLS client sends the offer, so no million files need to exist: the
/// receiver declines it for want of space (each photo claims 1 TiB), after checking all of it.
/// (The same through real folders and both binaries: `make bench`, Tests/Benchmarks/big-offer.sh.)
@Suite(.serialized) struct MillionEntryOfferTests {
    /// Entries of the accepted-size offer: 1,000,000 against a release build
    /// (`SHARE_BINARY=.build/release/share`); 250,000 against the debug build `make test` runs,
    /// which decodes a million entries too slowly for a test (about a minute under load; the memory
    /// per entry is the same: docs/PERFORMANCE.md, "Offers of a million entries").
    static let entries = ProcessInfo.processInfo.environment["SHARE_BINARY"].map { _ in 1_000_000 } ?? 250_000

    /// The most the receiver may hold: its resident size at start (under 48 MiB) plus what
    /// docs/PERFORMANCE.md allows per entry (200 bytes for these paths of about 25 bytes).
    static var receiverBound: Int { (48 << 20) + entries * 200 }

    /// The OFFER and ENTRIES frames of a photo library of `count` entries: `Photos`, then folders
    /// `Photos/<n>` of 998 photos `IMG_<n>.JPG` of `photoBytes` each, encoded directly (as
    /// docs/PROTOCOL.md §4 lays an entry out) in frames of about 1 MiB; and the declared total.
    static func library(entries count: Int, photoBytes: UInt64) -> (frames: [[UInt8]], total: UInt64) {
        var frames: [[UInt8]] = []
        var payload: [UInt8] = []
        var total: UInt64 = 0
        func append(_ value: UInt64, bytes: Int) {
            for shift in stride(from: (bytes - 1) * 8, through: 0, by: -8) { payload.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
        }
        func entry(_ path: String, folder: Bool) {
            payload.append(folder ? 2 : 1)
            append(UInt64(path.utf8.count), bytes: 2)
            payload.append(contentsOf: path.utf8)
            append(folder ? 0o755 : 0o644, bytes: 2)
            append(1_700_000_000, bytes: 8)
            append(0, bytes: 4)
            append(folder ? 0 : photoBytes, bytes: 8)
            append(0, bytes: 3)  // no link target, no type
            if !folder { total += photoBytes }
            if payload.count >= 1 << 20 {
                frames.append(payload)
                payload = []
            }
        }
        var folder = "Photos"
        entry(folder, folder: true)
        for number in 1..<count {
            if number % 999 == 1 {
                folder = "Photos/\(1_000 + number / 999)"
                entry(folder, folder: true)
            } else {
                entry("\(folder)/IMG_\(100_000 + number).JPG", folder: false)
            }
        }
        if !payload.isEmpty { frames.append(payload) }
        return (
            frames.enumerated().map { index, payload in
                var header: [UInt8] = []
                if index == 0 {
                    let start = [UInt8](repeating: 0, count: 12)
                    FrameEncoder.appendHeader(.offer, length: payload.count + start.count, to: &header)
                    header += [UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
                    return header + (0..<8).map { UInt8(truncatingIfNeeded: total >> UInt64(56 - 8 * $0)) } + payload
                }
                FrameEncoder.appendHeader(.entries, length: payload.count, to: &header)
                return header + payload
            }, total)
    }

    /// The receiver's peak resident size so far (`VmHWM`), in bytes.
    static func peakResidentBytes(of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return nil }
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }.map { $0 * 1024 }
    }

    @Test func aMillionEntriesAreCheckedAndAnsweredWithinTheBoundAndOneMoreIsRefused() async throws {
        let dir = TemporaryDirectory("million-offer")
        FileTree.makeFolder(dir.at("bob"))
        let environment = ShareBinary.environment(home: dir.at("bob"), config: dir.at("bob/config"))
        let receiver = ShareBinary.start(
            ["receive", "--port", "0", "--dir", dir.at("in"), "--accept", "all", "--json"], environment: environment)
        let port = try #require(await receiver.listeningPort())
        let sender = try HostileSender(in: dir)

        let (frames, total) = Self.library(entries: Self.entries, photoBytes: 1 << 40)
        #expect(total > UInt64(Self.entries / 2) << 40)
        let connection = try sender.connect("127.0.0.1:\(port)")
        connection.setTimeouts(receive: .seconds(120), send: .seconds(120))
        try connection.writeRaw(FrameEncoder.encode(.hello(Hello(name: "photos"))))
        do {
            for frame in frames { try connection.writeRaw(frame) }
        } catch {
            Issue.record("the receiver stopped reading: \(error)\n\(receiver.stdout.suffix(2_000))\n\(receiver.stderr.suffix(2_000))")
        }
        var decision: Decision?
        var answers: [Frame] = []
        while true {
            let frame: Frame?
            do { frame = try connection.receive() } catch {
                Issue.record("no answer: \(error)")
                break
            }
            guard let frame else { break }
            answers.append(frame)
            if case .decision(let answer) = frame {
                decision = answer
                break
            }
        }
        connection.close()
        // Declined for space, the check made after the offer passed every rule: a duplicate, a
        // missing folder or one entry too many would have been an ERROR instead.
        #expect(decision?.code == .insufficientSpace, "\(answers.map { "\($0)".prefix(300) }) \(receiver.stdout.suffix(1_000))")
        let peak = try #require(Self.peakResidentBytes(of: receiver.process.processIdentifier))
        #expect(peak < Self.receiverBound, "the receiver peaked at \(peak >> 20) MiB")
        print("MillionEntryOfferTests: \(Self.entries) entries, receiver peak \(peak >> 10) KiB")

        // One more: refused from the OFFER's count, before a single entry is kept.
        let (tooMany, _) = Self.library(entries: 1_000_001, photoBytes: 1)
        let refused = try sender.sendAfterHello(tooMany[0], to: "127.0.0.1:\(port)")
        #expect(refused?.code == .limitExceeded)
        #expect(
            refused?.message
                == "the offer was refused: the offer lists 1,000,001 files, folders and links; one offer may hold 1,000,000: send fewer at once")

        receiver.signal(SIGTERM)
        let output = await receiver.wait(timeout: .seconds(30))
        let events = output.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
        #expect(events.contains { $0["event"] as? String == "declined" })
        #expect(
            events.contains {
                $0["event"] as? String == "failed"
                    && ($0["error"] as? String)?.contains("the offer lists 1,000,001 files, folders and links") == true
            }, "\(output.stdout.suffix(2_000))")
    }
}
