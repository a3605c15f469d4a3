public import ShareDocuments
import ShareTLS
import ShareWire

/// The identity of an offer (docs/PROTOCOL.md §7): the SHA-256 of its entries as encoded on the
/// wire, so an offer of the same documents (same paths, sizes, modes, times, types) has the same
/// identity on both sides, and any change makes it a new offer.
public enum OfferIdentity {
    /// The bytes hashed before the entries: "share offer v2" and a zero byte.
    static let label = Array("share offer v2".utf8) + [0]

    /// `SHA-256("share offer v2" || 0x00 || entryCount u32 || totalBytes u64 || every entry)`.
    public static func of(_ manifest: Manifest) -> [UInt8] {
        var hasher = SHA256()
        var writer = ByteWriter(capacity: 1 << 16)
        writer.raw(label)
        let start = OfferCodec.start(manifest)
        writer.u32(start.entryCount)
        writer.u64(start.totalBytes)
        for entry in manifest.entries {
            OfferCodec.encode(entry, into: &writer)
            if writer.bytes.count >= 1 << 16 {
                hasher.update(writer.bytes)
                writer.bytes.removeAll(keepingCapacity: true)
            }
        }
        hasher.update(writer.bytes)
        return hasher.finalize()
    }
}
