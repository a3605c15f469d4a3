import Foundation
import ShareTestSupport
import Testing

@testable import ShareKit

#if canImport(Glibc)
import Glibc
#endif

/// The disk thread's writes of one file: large files go past the page cache in aligned blocks and
/// their ends through it; whatever the pieces, the file holds exactly the bytes given, in order.
@Suite struct FileOutputTests {
    /// Bytes numbered so that any lost, doubled or moved piece shows.
    private static func pattern(_ count: Int, from start: Int = 0) -> [UInt8] {
        (start..<(start + count)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
    }

    private static func write(_ pieces: [Int], to path: String, offset: Int = 0, size: Int) throws -> Int32? {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        try #require(fd >= 0)
        defer { close(fd) }
        #expect(lseek(fd, off_t(offset), SEEK_SET) == off_t(offset))
        var output = FileOutput()
        output.open(fd, size: UInt64(size), offset: UInt64(offset))
        var position = offset
        for count in pieces {
            let bytes = pattern(count, from: position)
            if let problem = bytes.withUnsafeBytes({ output.write($0) }) { return problem }
            position += count
        }
        return output.finish()
    }

    @Test func aLargeFileInOddPiecesHoldsExactlyItsBytes() throws {
        let dir = TemporaryDirectory("file-output")
        // 9 MiB and 13 bytes: whole buffers, pieces across buffer ends, and a tail of less than a block.
        let size = (9 << 20) + 13
        var pieces = [1, 4095, (1 << 20) + 7, 3 << 20, 12_345]
        pieces.append(size - pieces.reduce(0, +))
        #expect(try Self.write(pieces, to: dir.at("big.bin"), size: size) == nil)
        let landed = try #require(FileManager.default.contents(atPath: dir.at("big.bin")))
        #expect(landed.count == size)
        #expect(Array(landed) == Self.pattern(size))
    }

    @Test func aLargeFileContinuedAtAnUnalignedOffsetHoldsExactlyItsBytes() throws {
        let dir = TemporaryDirectory("file-output-continued")
        let held = 3 << 20 | 517
        let size = 10 << 20
        #expect(try Self.write([held], to: dir.at("big.bin"), size: size) == nil)
        #expect(try Self.write([1 << 20, size - held - (1 << 20)], to: dir.at("big.bin"), offset: held, size: size) == nil)
        let landed = try #require(FileManager.default.contents(atPath: dir.at("big.bin")))
        #expect(Array(landed) == Self.pattern(size))
    }

    @Test func aSmallFileIsWrittenAsItArrives() throws {
        let dir = TemporaryDirectory("file-output-small")
        let pieces = [100, 5000, 1 << 20]
        let size = pieces.reduce(0, +)
        #expect(try Self.write(pieces, to: dir.at("small.bin"), size: size) == nil)
        #expect(Array(try #require(FileManager.default.contents(atPath: dir.at("small.bin")))) == Self.pattern(size))
    }
}
