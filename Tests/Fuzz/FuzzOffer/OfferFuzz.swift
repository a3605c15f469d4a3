import FuzzSupport
import ShareDocuments
import ShareWire

/// libFuzzer entry point: `input` is the payload of an OFFER frame as a peer could send it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOffer(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    OfferFuzz.run(UnsafeBufferPointer(start: data, count: count))
    return 0
}

/// Fuzzes the OFFER decoder and manifest validation (docs/PROTOCOL.md §4, §7).
///
/// The input is wrapped in an OFFER header and decoded. A refused offer must say why in text that is
/// safe to print. An accepted one must satisfy ``ManifestInvariants`` (paths safe byte for byte,
/// parents first, items contiguous, no path twice, case collisions reported, notes safe, links
/// confined under exact and (without collisions) case-insensitive name lookup, counts and totals
/// right), and every decoded OFFER frame encodes back to exactly the input.
enum OfferFuzz {
    static func run(_ input: UnsafeBufferPointer<UInt8>) {
        guard input.count <= FrameType.offer.maxPayload else { return }
        var frame: [UInt8] = []
        frame.reserveCapacity(5 + input.count)
        FrameEncoder.appendHeader(.offer, length: input.count, to: &frame)
        frame.append(contentsOf: input)

        var decoder = FrameDecoder(capacity: frame.count)
        decoder.append(contentsOf: frame)
        let decoded: Frame?
        do {
            decoded = try decoder.next()
        } catch {
            Invariant.requirePrintable(error.description, "the refusal of an offer")
            return
        }
        guard case .offer(let start, let entries)? = decoded else {
            Invariant.require(false, "a complete OFFER frame decoded to \(String(describing: decoded))")
            return
        }
        Invariant.require(FrameEncoder.encode(.offer(start, entries: entries)) == frame, "an OFFER re-encodes to other bytes")
        guard entries.count == Int(start.entryCount) else { return }
        do {
            let manifest = try Manifest(entries: entries, declaredTotal: start.totalBytes)
            ManifestInvariants.check(manifest)
        } catch {
            Invariant.requirePrintable(error.description, "the refusal of an offer")
        }
    }
}
