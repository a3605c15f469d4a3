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

/// End-to-end transfers over real sockets and real TLS on loopback, each with its own identities
/// and folders.
@Suite struct LoopbackTransferTests {
    @Test func sendsOneFileWithItsModeTimeAndHash() throws {
        let dir = TemporaryDirectory("one-file")
        let harness = try ReceiverHarness(in: dir)
        FileTree.writeText(dir.at("Report.pdf"), "%PDF-1.7 pretend\n")
        chmod(dir.at("Report.pdf"), 0o640)
        FileTree.setModificationTime(dir.at("Report.pdf"), seconds: 1_600_000_000, nanoseconds: 123_456_789)

        let report = try TestSender(in: dir).send([dir.at("Report.pdf")], to: harness)

        let landed = harness.destination + "/Report.pdf"
        #expect(FileManager.default.contents(atPath: landed) == Data("%PDF-1.7 pretend\n".utf8))
        #expect(FileTree.describe(landed) == FileTree.describe(dir.at("Report.pdf")).map { $0 })
        #expect(report.items.map(\.text) == [DisplayPath.abbreviate(landed)])
        #expect(report.files.map(\.sha256) == [hexDigest(of: dir.at("Report.pdf"))])
        #expect(report.peerName == "desk")
        #expect(report.peerFingerprint == harness.identity.fingerprint)
        guard case .received(let transfer) = harness.nextOutcome() else {
            Issue.record("the receiver did not report a received transfer")
            return
        }
        #expect(transfer.items.map(\.path) == [landed])
        #expect(transfer.peerName == "laptop")
        #expect(transfer.files.map(\.sha256) == report.files.map(\.sha256))
        #expect(leftovers(harness.destination) == ["Report.pdf"])
    }

    @Test func sendsAZeroByteFile() throws {
        let dir = TemporaryDirectory("zero")
        let harness = try ReceiverHarness(in: dir)
        FileTree.writeText(dir.at("empty.txt"), "")
        let report = try TestSender(in: dir).send([dir.at("empty.txt")], to: harness)
        #expect(report.bytes == 0)
        #expect(report.files.map(\.sha256) == ["e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"])
        #expect(FileTree.describe(harness.destination + "/empty.txt") == FileTree.describe(dir.at("empty.txt")))
    }

    @Test func sendsA256MiBFileIntact() throws {
        let dir = TemporaryDirectory("large")
        let harness = try ReceiverHarness(in: dir)
        FileTree.writeFile(dir.at("disk.img"), size: 256 << 20, seed: 42)
        let report = try TestSender(in: dir).send([dir.at("disk.img")], to: harness)
        #expect(report.bytes == 256 << 20)
        let landed = harness.destination + "/disk.img"
        #expect(hexDigest(of: landed) == hexDigest(of: dir.at("disk.img")))
        #expect(report.files.first?.sha256 == hexDigest(of: landed))
        // The sender hashes a file this large on a thread of its own (HashLane).
        guard case .received(let transfer) = harness.nextOutcome() else {
            Issue.record("the receiver did not report a received transfer")
            return
        }
        #expect(transfer.files.map(\.sha256) == [hexDigest(of: dir.at("disk.img"))])
    }

    @Test func sendsALargeFileOfAnUnalignedSizeIntact() throws {
        // Large files are written past the page cache in whole blocks; this one ends mid-block.
        let dir = TemporaryDirectory("large-unaligned")
        let harness = try ReceiverHarness(in: dir)
        let size = (9 << 20) + 4099
        FileTree.writeFile(dir.at("video.mkv"), size: size, seed: 7)
        let report = try TestSender(in: dir).send([dir.at("video.mkv")], to: harness)
        #expect(report.bytes == UInt64(size))
        let landed = harness.destination + "/video.mkv"
        #expect(FileManager.default.contents(atPath: landed)?.count == size)
        #expect(hexDigest(of: landed) == hexDigest(of: dir.at("video.mkv")))
    }

    @Test func sendsABundleOfAThousandNestedFilesWithAnEmptyFolder() throws {
        let dir = TemporaryDirectory("bundle")
        let harness = try ReceiverHarness(in: dir)
        let bundle = dir.at("Project.sbz")
        for folder in 0..<10 {
            for sub in 0..<4 {
                let path = "\(bundle)/part\(folder)/section\(sub)"
                FileTree.makeFolder(path)
                for file in 0..<25 {
                    FileTree.writeFile("\(path)/note\(file).txt", size: (folder * 97 + sub * 31 + file * 13) % 3000, seed: UInt64(folder * 1000 + sub * 100 + file))
                }
            }
        }
        FileTree.makeFolder(bundle + "/Empty Folder")
        FileTree.makeFolder(bundle + "/readonly", mode: 0o555)
        FileTree.writeFile(bundle + "/part0/run.sh", size: 10, mode: 0o755)
        symlink("part0/section0/note1.txt", bundle + "/latest.txt")
        for (index, path) in FileTree.allPaths(bundle).enumerated() {
            FileTree.setModificationTime(bundle + "/" + path, seconds: 1_500_000_000 + index)
        }
        FileTree.setModificationTime(bundle, seconds: 1_400_000_000)

        let report = try TestSender(in: dir).send([bundle], to: harness)

        #expect(report.files.count == 1_001)
        #expect(report.items.map(\.isBundle) == [true])
        let landed = harness.destination + "/Project.sbz"
        #expect(FileTree.describe(landed, includeRootTime: true) == FileTree.describe(bundle, includeRootTime: true, asReceived: true))
        #expect(leftovers(harness.destination).filter { $0.hasPrefix(".") }.isEmpty)
    }

    @Test func sendsSeveralPathsInOneTransfer() throws {
        let dir = TemporaryDirectory("several")
        let harness = try ReceiverHarness(in: dir)
        FileTree.writeText(dir.at("a.txt"), "a")
        FileTree.makeFolder(dir.at("Bugs.sbz/Images"))
        FileTree.writeText(dir.at("Bugs.sbz/Data.plist"), "<plist/>")
        FileTree.writeFile(dir.at("photo.jpg"), size: 70_000, seed: 7)
        let report = try TestSender(in: dir).send([dir.at("a.txt"), dir.at("Bugs.sbz"), dir.at("photo.jpg")], to: harness)
        #expect(report.items.map(\.name) == ["a.txt", "Bugs.sbz", "photo.jpg"])
        #expect(report.files.count == 3)
        #expect(leftovers(harness.destination) == ["Bugs.sbz", "Bugs.sbz/Data.plist", "Bugs.sbz/Images", "a.txt", "photo.jpg"])
        guard case .received(let transfer) = harness.nextOutcome() else {
            Issue.record("no received outcome")
            return
        }
        #expect(transfer.items.count == 3)
    }

    @Test func neverOverwritesAnExistingName() throws {
        let dir = TemporaryDirectory("clash")
        let harness = try ReceiverHarness(in: dir)
        FileTree.makeFolder(harness.destination)
        FileTree.writeText(harness.destination + "/Report.pdf", "the user's own report")
        FileTree.writeText(dir.at("Report.pdf"), "incoming report")
        FileTree.makeFolder(dir.at("Bugs.sbz"))
        FileTree.writeText(dir.at("Bugs.sbz/Data.plist"), "bugs")
        let sender = try TestSender(in: dir)

        let first = try sender.send([dir.at("Report.pdf"), dir.at("Bugs.sbz")], to: harness)
        let second = try sender.send([dir.at("Report.pdf"), dir.at("Bugs.sbz")], to: harness)

        #expect(FileManager.default.contents(atPath: harness.destination + "/Report.pdf") == Data("the user's own report".utf8))
        #expect(first.items.map(\.text).map { ($0 as NSString).lastPathComponent } == ["Report (2).pdf", "Bugs.sbz"])
        #expect(second.items.map(\.text).map { ($0 as NSString).lastPathComponent } == ["Report (3).pdf", "Bugs (2).sbz"])
        #expect(FileManager.default.contents(atPath: harness.destination + "/Report (3).pdf") == Data("incoming report".utf8))
        #expect(FileManager.default.contents(atPath: harness.destination + "/Bugs (2).sbz/Data.plist") == Data("bugs".utf8))
    }

    @Test func aDeclinedOfferWritesNothing() throws {
        let dir = TemporaryDirectory("decline")
        let harness = try ReceiverHarness(in: dir) { _ in Decision(.declinedByUser, message: "not today") }
        FileTree.writeText(dir.at("a.txt"), "a")
        #expect {
            _ = try TestSender(in: dir).send([dir.at("a.txt")], to: harness)
        } throws: { error in
            guard case SendError.declined(let decision) = error else { return false }
            return decision.code == .declinedByUser && decision.message == "not today"
                && "\(error)" == "the receiver declined the offer: not today"
        }
        guard case .declined(let offer, _) = harness.nextOutcome() else {
            Issue.record("the receiver did not report the decline")
            return
        }
        #expect(offer.manifest.items.map(\.name) == ["a.txt"])
        #expect(leftovers(harness.destination).isEmpty)
    }

    @Test func aReceiverThatIsNotListeningIsAClearError() throws {
        let dir = TemporaryDirectory("refused")
        FileTree.writeText(dir.at("a.txt"), "a")
        // Find a port nobody listens on: bind one, close it.
        let port = try freePort()
        let sender = try TestSender(in: dir)
        let prepared = try PreparedSend.scan([dir.at("a.txt")])
        #expect {
            _ = try Sender.send(prepared, to: .init(host: "127.0.0.1", port: port), identity: sender.identity, options: sender.options)
        } throws: { error in
            "\(error)" == "nobody is receiving at 127.0.0.1:\(port) (connection refused); start 'share receive' there, or check the port"
        }
    }

    @Test func fallsBackAcrossAPeersAddresses() throws {
        let dir = TemporaryDirectory("fallback")
        let harness = try ReceiverHarness(in: dir)
        FileTree.writeText(dir.at("a.txt"), "a")
        let sender = try TestSender(in: dir)
        let prepared = try PreparedSend.scan([dir.at("a.txt")])
        let dead = Endpoint(host: "127.0.0.1", port: try freePort())
        let live = try #require(Endpoint(parsing: harness.endpoint))
        let report = try Sender.send(prepared, toFirstOf: [dead, live], identity: sender.identity, options: sender.options)
        #expect(report.endpoint == live.description)
        #expect(throws: SendError.self) {
            _ = try Sender.send(prepared, toFirstOf: [dead, dead], identity: sender.identity, options: sender.options)
        }
        do {
            _ = try Sender.send(prepared, toFirstOf: [dead, Endpoint(host: "::1", port: dead.port)], identity: sender.identity, options: sender.options)
        } catch {
            // Said once for the peer, not once per address.
            #expect("\(error)" == "nobody is receiving at \(dead) or [::1]:\(dead.port) (connection refused); start 'share receive' there, or check the port")
        }
    }

    /// Files go in name order: one.bin, three.bin, two.bin; two.bin is large enough for the sender
    /// to hash it on a thread of its own (HashLane).
    @Test(arguments: [(1, "Docs/three.bin"), (2, "Docs/two.bin")])
    func aWrongHashIsCaughtAndNothingIsKept(corrupted: Int, path: String) throws {
        let dir = TemporaryDirectory("hash")
        let harness = try ReceiverHarness(in: dir)
        FileTree.makeFolder(dir.at("Docs"))
        FileTree.writeFile(dir.at("Docs/one.bin"), size: 100_000, seed: 1)
        FileTree.writeFile(dir.at("Docs/two.bin"), size: 12 << 20, seed: 2)
        FileTree.writeFile(dir.at("Docs/three.bin"), size: 10, seed: 3)
        var sender = try TestSender(in: dir)
        sender.options.corruptDigestOfFile = corrupted

        #expect {
            _ = try sender.send([dir.at("Docs")], to: harness)
        } throws: { error in
            guard case SendError.failed(.remote(let peer)) = error else { return false }
            return peer.code == .hashMismatch && peer.message.contains(path)
        }
        guard case .failed(_, _, _, let failure, _) = harness.nextOutcome() else {
            Issue.record("the receiver did not report the failure")
            return
        }
        #expect(failure.code == .hashMismatch)
        #expect(leftovers(harness.destination).isEmpty)
    }

    @Test func aSymbolicLinkLeavingTheFolderIsRefusedBeforeSending() throws {
        let dir = TemporaryDirectory("link")
        FileTree.makeFolder(dir.at("Bundle"))
        symlink("../../etc/passwd", dir.at("Bundle/escape"))
        #expect {
            _ = try PreparedSend.scan([dir.at("Bundle")])
        } throws: { error in
            "\(error)".contains("Bundle/escape' points to '../../etc/passwd', outside the folder being sent")
        }
        symlink("/etc/hostname", dir.at("Bundle/absolute"))
        #expect(throws: SendError.self) { try PreparedSend.scan([dir.at("Bundle")]) }
    }

    @Test func anAbsoluteLinkInsideTheFolderBecomesRelative() throws {
        let dir = TemporaryDirectory("abslink")
        FileTree.makeFolder(dir.at("Bundle/sub"))
        FileTree.writeText(dir.at("Bundle/sub/target.txt"), "t")
        symlink(dir.at("Bundle/sub/target.txt"), dir.at("Bundle/link"))
        let prepared = try PreparedSend.scan([dir.at("Bundle")])
        #expect(prepared.manifest.entries.first { $0.path == "Bundle/link" }?.linkTarget == "sub/target.txt")
    }
}

/// The SHA-256 of a file, in lowercase hex, through ShareTLS.
func hexDigest(of path: String) -> String {
    let fd = open(path, O_RDONLY)
    defer { close(fd) }
    var hasher = SHA256()
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count <= 0 { break }
        buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }
    return hasher.finalize().map { String(format: "%02x", $0) }.joined()
}

/// A loopback port with nothing listening on it.
func freePort() throws -> UInt16 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
    _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return UInt16(bigEndian: address.sin_port)
}
