import ShareDocuments

/// Decodes the payload of an OFFER into a validated ``Manifest``.
enum OfferCodec {
    /// The fewest bytes one encoded entry can take (kind, empty path, mode, times, size, empty
    /// target, empty type); used to refuse an entry count the payload cannot hold before reserving.
    static let minimumEntryBytes = 1 + 2 + 2 + 8 + 4 + 8 + 2 + 1

    static func decode(_ reader: inout ByteReader, limits: ManifestLimits) throws(WireError) -> Manifest {
        let count = Int(try reader.u32())
        let total = try reader.u64()
        if count > limits.maxEntries {
            throw .invalidOffer(.tooManyEntries(count: count, limit: limits.maxEntries))
        }
        if count * minimumEntryBytes > reader.remaining {
            throw .malformed(.offer, "\(count) entries cannot fit in \(reader.remaining) bytes")
        }
        var entries: [ManifestEntry] = []
        entries.reserveCapacity(count)
        for _ in 0..<count {
            let rawKind = try reader.u8()
            guard let kind = EntryKind(rawValue: rawKind) else {
                throw .malformed(.offer, "unknown entry kind \(rawKind)")
            }
            let path = try reader.str16("a path")
            let mode = try reader.u16()
            let seconds = try reader.i64()
            let nanos = try reader.u32()
            let size = try reader.u64()
            let target = try reader.str16("a link target")
            let type = try reader.str8("a type identifier")
            entries.append(
                ManifestEntry(
                    kind: kind, path: path, mode: mode, modificationSeconds: seconds, modificationNanoseconds: nanos,
                    size: size, linkTarget: target, declaredType: type))
        }
        try reader.expectEnd()
        do {
            return try Manifest(entries: entries, declaredTotal: total, limits: limits)
        } catch {
            throw .invalidOffer(error)
        }
    }
}
