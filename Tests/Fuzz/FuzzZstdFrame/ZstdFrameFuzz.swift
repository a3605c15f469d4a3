import FuzzSupport
import ShareCompression

/// libFuzzer entry point: `input` is a zstd DATA payload as a peer could send it, behind 4 bytes
/// that choose the announced length and a level.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzZstdFrame(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    ZstdFrameFuzz.run(UnsafeBufferPointer(start: data, count: count))
    return 0
}

/// Fuzzes `ZstdDecompressor` and `ZstdCompressor` (docs/PROTOCOL.md §8).
///
/// Input: byte 0 chooses a level (-5 ... 9), bytes 1-3 the announced length (1 ... 2^20), the rest
/// is the payload. Invariants:
/// - nothing traps or reads out of bounds (AddressSanitizer; libzstd itself is not instrumented);
/// - the payload is either refused, with a printable reason, or gives exactly the announced number
///   of bytes, and those bytes compress and decompress back to themselves;
/// - the payload taken as file bytes compresses to a frame that decompresses back to it, and a frame
///   made under a limit is within it.
enum ZstdFrameFuzz {
    static let compressor = ZstdCompressor()
    static let decompressor = ZstdDecompressor()

    static func run(_ input: UnsafeBufferPointer<UInt8>) {
        guard input.count >= 4 else { return }
        var level = Int(input[0] % 15) - 5
        if level >= 0 { level += 1 }
        let announced = 1 + (Int(input[1]) << 16 | Int(input[2]) << 8 | Int(input[3])) % (1 << 20)
        let payload = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(input)[4...])

        do {
            let bytes = try decompressor.decompress(payload, expectedLength: announced)
            Invariant.require(bytes.count == announced, "\(bytes.count) bytes decompressed, \(announced) announced")
            roundTrip(bytes, level: level)
        } catch {
            Invariant.require(!error.description.isEmpty, "a refusal without a reason")
            Invariant.requirePrintable(error.description, "a ZstdFrameError")
        }

        if !payload.isEmpty { roundTrip([UInt8](payload), level: level) }
    }

    static func roundTrip(_ bytes: [UInt8], level: Int) {
        guard let frame = compressor.compress(bytes, level: level) else {
            Invariant.require(false, "no frame for \(bytes.count) bytes without a limit")
            return
        }
        do {
            let back = try decompressor.decompress(frame, expectedLength: bytes.count)
            Invariant.require(back == bytes, "a frame at level \(level) gave other bytes back")
        } catch {
            Invariant.require(false, "a frame at level \(level) was refused: \(error)")
        }
        let limit = bytes.count / 2
        if let small = compressor.compress(bytes, level: level, limit: limit) {
            Invariant.require(small.count <= limit, "a frame of \(small.count) bytes under a limit of \(limit)")
        }
    }
}
