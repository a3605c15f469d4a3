/// zstd frames built by hand (RFC 8878 §3.1.1) for hostile-peer tests: frames libzstd would never
/// write, such as a bomb that declares no content size.
public enum HandMadeZstd {
    /// A frame with no content size and a window of 2^windowLog bytes, then `blocks`, each a
    /// 3-byte block header and its content.
    public static func frame(windowLog: Int = 17, blocks: [[UInt8]]) -> [UInt8] {
        let windowDescriptor = UInt8((windowLog - 10) << 3)
        return [0x28, 0xB5, 0x2F, 0xFD, 0x00, windowDescriptor] + blocks.joined()
    }

    /// An RLE block: `count` copies of one byte (`A`) from 4 bytes of input.
    public static func rleBlock(count: Int, last: Bool) -> [UInt8] {
        let header = UInt32(count) << 3 | 1 << 1 | (last ? 1 : 0)
        return [UInt8(header & 0xFF), UInt8(header >> 8 & 0xFF), UInt8(header >> 16 & 0xFF), 0x41]
    }

    /// A bomb: 2,048 RLE blocks of 128 KiB, 8 KiB that would expand to 256 MiB.
    public static let bomb = frame(blocks: (0..<2048).map { rleBlock(count: 128 << 10, last: $0 == 2047) })
}
