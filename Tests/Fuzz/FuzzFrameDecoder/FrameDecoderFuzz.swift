import FuzzSupport
import ShareDocuments
import ShareWire

/// libFuzzer entry point: `input` is a byte stream as a peer could send it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrameDecoder(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    FrameDecoderFuzz.run(UnsafeBufferPointer(start: data, count: count))
    return 0
}

/// Fuzzes `FrameDecoder` (docs/PROTOCOL.md §3, §4).
///
/// The input is decoded twice: once fed in chunks whose sizes (1 byte to all of it), feeding method
/// (`append` or `readInto`) and starting buffer capacity come from a generator seeded by the input,
/// and once in one piece. Invariants:
/// - nothing traps or reads out of bounds (AddressSanitizer);
/// - the chunking changes nothing: the same frames, then the same error or the same clean end;
/// - every decoded frame encodes back to exactly the bytes it came from (an ERROR frame with an
///   unknown code or a message the encoder clips re-decodes to its normalized form);
/// - every error's description is safe to print.
enum FrameDecoderFuzz {
    struct Outcome {
        var frames: [Frame] = []
        var error: WireError?
    }

    static func run(_ input: UnsafeBufferPointer<UInt8>) {
        let chunked = decode(input, chunking: InputRandom(seededBy: input))
        let whole = decode(input, chunking: nil)

        Invariant.require(chunked.frames.count == whole.frames.count, "\(chunked.frames.count) frames in chunks, \(whole.frames.count) whole")
        for (a, b) in zip(chunked.frames, whole.frames) {
            Invariant.require(FrameEncoder.encode(a) == FrameEncoder.encode(b), "chunking changed a \(a.type) frame")
        }
        Invariant.require(chunked.error == whole.error, "chunking changed the error: \(String(describing: chunked.error)) vs \(String(describing: whole.error))")
        if let error = whole.error { Invariant.requirePrintable(error.description, "a WireError") }

        var offset = 0
        for frame in whole.frames {
            let length = 5 + (Int(input[offset + 1]) << 24 | Int(input[offset + 2]) << 16 | Int(input[offset + 3]) << 8 | Int(input[offset + 4]))
            let original = UnsafeBufferPointer(rebasing: input[offset..<(offset + length)])
            checkRoundTrip(frame, original: original)
            offset += length
        }
        if whole.error == nil { Invariant.require(offset == input.count, "clean end with \(input.count - offset) bytes not in any frame") }
    }

    /// Decodes `input` in chunks drawn from `chunking`, or in one piece when it is nil.
    static func decode(_ input: UnsafeBufferPointer<UInt8>, chunking: InputRandom?) -> Outcome {
        var outcome = Outcome()
        var random = chunking
        var capacity = input.count
        if var generator = random {
            capacity = 1 << generator.next(in: 0...17)
            random = generator
        }
        var decoder = FrameDecoder(capacity: capacity)
        var offset = 0
        repeat {
            var size = input.count - offset
            var useReadInto = false
            if var generator = random {
                switch generator.next(in: 0...3) {
                case 0: size = min(size, generator.next(in: 1...8))
                case 1: size = min(size, generator.next(in: 1...300))
                case 2: size = min(size, generator.next(in: 1...70_000))
                default: break
                }
                useReadInto = generator.next(in: 0...1) == 1
                random = generator
            }
            let chunk = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(input)[offset..<(offset + size)])
            if useReadInto {
                let written = decoder.readInto(minimumSpace: max(size, 1)) { tail in
                    Invariant.require(tail.count >= size, "readInto gave \(tail.count) bytes of space, asked \(size)")
                    tail.copyMemory(from: chunk)
                    return size
                }
                Invariant.require(written == size, "readInto reported \(written)")
            } else {
                decoder.append(chunk)
            }
            offset += size
            do {
                while let frame = try decoder.next() { outcome.frames.append(frame) }
            } catch {
                outcome.error = error
                return outcome
            }
        } while offset < input.count
        do { try decoder.finish() } catch { outcome.error = error }
        Invariant.require(outcome.error != nil || decoder.bufferedByteCount == 0, "finish() passed with bytes buffered")
        return outcome
    }

    static func checkRoundTrip(_ frame: Frame, original: UnsafeBufferPointer<UInt8>) {
        let encoded = FrameEncoder.encode(frame)
        var decoder = FrameDecoder(capacity: encoded.count)
        decoder.append(contentsOf: encoded)
        let again: Frame?
        do { again = try decoder.next() } catch {
            Invariant.require(false, "a re-encoded \(frame.type) frame does not decode: \(error)")
            return
        }
        switch frame {
        case .error(let peerError):
            let wireCode = UInt16(original[5]) << 8 | UInt16(original[6])
            Invariant.requirePrintable(peerError.description, "a peer's ERROR message")
            Invariant.require(again == .error(peerError.clipped), "an ERROR frame changed in a round trip")
            if peerError.code.rawValue == wireCode && peerError.message.utf8.count <= 4_000 {
                Invariant.require(encoded.elementsEqual(original), "an ERROR frame re-encodes to other bytes")
            }
        case .receipt:
            // Unknown outcomes read as keptInInbox (PROTOCOL.md §4), so only the decoded value must survive.
            Invariant.require(again == frame, "a RECEIPT frame changed in a round trip")
        default:
            Invariant.require(again == frame, "a \(frame.type) frame changed in a round trip")
            Invariant.require(encoded.elementsEqual(original), "a \(frame.type) frame re-encodes to other bytes")
        }
        if case .offer(let start, let entries) = frame, entries.count == Int(start.entryCount),
            let manifest = try? Manifest(entries: entries, declaredTotal: start.totalBytes)
        {
            ManifestInvariants.check(manifest)
        }
    }
}
