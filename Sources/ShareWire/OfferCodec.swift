public import ShareDocuments

/// Encodes and decodes the entries of OFFER and ENTRIES frames (docs/PROTOCOL.md §4).
///
/// Decoding checks each entry's own encoding (kinds, lengths, UTF-8); the rules that involve the
/// whole offer are checked once it is complete, by ``Manifest``.
public enum OfferCodec {
    /// The fewest bytes one encoded entry can take (kind, empty path, mode, times, size, empty
    /// target, empty type); used to refuse an entry count the payload cannot hold before reserving.
    static let minimumEntryBytes = ManifestEntry.fixedEncodedSize
    /// Bytes of the OFFER header (entry count and total).
    static let offerHeaderBytes = 4 + 8

    /// The encoded size of `entry` in an OFFER or ENTRIES frame.
    public static func encodedSize(of entry: ManifestEntry) -> Int { entry.encodedSize }

    /// Appends `entry` as encoded on the wire.
    public static func encode(_ entry: ManifestEntry, into writer: inout ByteWriter) {
        writer.u8(entry.kind.rawValue)
        writer.str16(entry.path)
        writer.u16(entry.mode)
        writer.i64(entry.modificationSeconds)
        writer.u32(entry.modificationNanoseconds)
        writer.u64(entry.size)
        writer.str16(entry.linkTarget)
        writer.str8(entry.declaredType)
        if entry.kind == .note { writer.raw(entry.content) }
    }

    /// The payload a sender puts in one OFFER or ENTRIES frame: far below what the protocol allows
    /// (``FrameType/maxPayload``, 16 MiB), so that encoding a frame, and the receiver's buffer for
    /// it, never hold more than about 1 MiB of an offer at once.
    public static let preferredPayload = 1 << 20

    /// The payload of a sender's OFFER frame, which is smaller than its ENTRIES frames: a receiver
    /// gives the offer's first frame a hard deadline (docs/SECURITY.md, 30 s) and only then lets
    /// the rest arrive at the least rate it allows (4 KiB/s takes 16 s for 64 KiB), so a large
    /// offer over a slow link is not cut off.
    public static let firstFramePayload = 64 << 10

    /// The frames that carry `manifest`: one OFFER within ``firstFramePayload`` (or `maxPayload`,
    /// when smaller), then as many ENTRIES as needed, each within `maxPayload` bytes. Each frame's
    /// entries are a window of the manifest's (no copy).
    public static func frames(for manifest: Manifest, maxPayload: Int = preferredPayload) -> [Frame] {
        let entries = manifest.entries
        var frames: [Frame] = []
        var batchStart = 0
        var size = offerHeaderBytes
        func close(at end: Int) {
            let batch = entries.window(batchStart..<end)
            frames.append(frames.isEmpty ? .offer(start(manifest), entries: batch) : .entries(batch))
        }
        for index in entries.indices {
            let entrySize = entries.encodedSize(at: index)
            let limit = frames.isEmpty ? min(maxPayload, firstFramePayload) : maxPayload
            if index > batchStart && size + entrySize > limit {
                close(at: index)
                batchStart = index
                size = 0
            }
            size += entrySize
        }
        close(at: entries.count)
        return frames
    }

    /// The OFFER header of `manifest`.
    public static func start(_ manifest: Manifest) -> OfferStart {
        OfferStart(entryCount: UInt32(manifest.entries.count), totalBytes: manifest.totalBytes)
    }

    static func decodeEntries(
        _ reader: inout ByteReader, frameType: FrameType, limits: ManifestLimits
    ) throws(WireError) -> ManifestEntries {
        var entries = ManifestEntries()
        entries.reserveCapacity(min(reader.remaining / minimumEntryBytes, 1 << 16))
        while !reader.isAtEnd {
            let rawKind = try reader.u8()
            guard let kind = EntryKind(rawValue: rawKind) else {
                throw .malformed(frameType, "unknown entry kind \(rawKind)")
            }
            let path = try reader.str16("a path")
            let mode = try reader.u16()
            let seconds = try reader.i64()
            let nanos = try reader.u32()
            let size = try reader.u64()
            let target = try reader.str16("a link target")
            let type = try reader.str8("a type identifier")
            var content: [UInt8] = []
            if kind == .note {
                guard size <= UInt64(limits.maxNoteBytes) else {
                    throw .invalidOffer(
                        .invalidNote(path: path, reason: "holds \(size) bytes (the limit is \(limits.maxNoteBytes))"))
                }
                content = Array(try reader.raw(Int(size)))
            }
            entries.append(
                ManifestEntry(
                    kind: kind, path: path, mode: mode, modificationSeconds: seconds, modificationNanoseconds: nanos,
                    size: size, linkTarget: target, declaredType: type, content: content))
        }
        if entries.isEmpty { throw .malformed(frameType, "no entries") }
        return entries
    }

    static func decodeOffer(_ reader: inout ByteReader, limits: ManifestLimits) throws(WireError) -> Frame {
        let count = try reader.u32()
        let total = try reader.u64()
        if Int(count) > limits.maxEntries {
            throw .invalidOffer(.tooManyEntries(count: Int(count), limit: limits.maxEntries))
        }
        let entries = try decodeEntries(&reader, frameType: .offer, limits: limits)
        if entries.count > Int(count) {
            throw .invalidOffer(.moreEntriesThanAnnounced(announced: Int(count)))
        }
        return .offer(OfferStart(entryCount: count, totalBytes: total), entries: entries)
    }
}
