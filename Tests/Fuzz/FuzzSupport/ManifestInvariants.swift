public import ShareDocuments
import ShareWire

/// What every manifest that `Manifest.init` accepts must satisfy (docs/PROTOCOL.md §4), checked
/// independently of the code that validated it: on bytes, the way the receiver's filesystem sees
/// the paths.
public enum ManifestInvariants {
    /// Traps (see ``Invariant``) if `manifest` breaks a rule of the protocol or does not survive an
    /// OFFER encode/decode round trip byte for byte.
    public static func check(_ manifest: Manifest, limits: ManifestLimits = .protocolV1) {
        let entries = manifest.entries
        Invariant.require(!entries.isEmpty && entries.count <= limits.maxEntries, "\(entries.count) entries accepted")
        Invariant.require(manifest.items.count <= limits.maxItems, "\(manifest.items.count) items accepted")

        var keys = Set<String>()
        var folders = Set<[UInt8]>()
        var fileIndices: [Int] = []
        var total: UInt64 = 0
        var itemStarts: [Int] = []
        for (index, entry) in entries.enumerated() {
            let path = entry.path
            let shown = path.debugDescription
            if let problem = BytePathOracle.problem(in: path, limits: limits) {
                Invariant.require(false, "accepted path \(shown) has \(problem)")
            }
            Invariant.require(keys.insert(PathRules.collisionKey(path)).inserted, "\(shown) collides with an earlier path")
            Invariant.require(entry.mode & ~0o777 == 0, "\(shown) has mode \(String(entry.mode, radix: 8))")
            Invariant.require(entry.modificationNanoseconds < 1_000_000_000, "\(shown) has invalid nanoseconds")
            Invariant.require(entry.kind == .file || entry.size == 0, "\(shown) is a \(entry.kind) with a size")
            Invariant.require(entry.kind == .symlink || entry.linkTarget.isEmpty, "\(shown) has a link target")

            let components = BytePathOracle.components(of: path)
            if components.count == 1 {
                itemStarts.append(index)
                Invariant.require(entry.kind != .symlink, "top-level link \(shown) accepted")
                Invariant.require(
                    entry.declaredType.isEmpty || Self.isTypeIdentifier(entry.declaredType, limits: limits),
                    "\(shown) declares the type \(entry.declaredType.debugDescription)")
            } else {
                Invariant.require(entry.declaredType.isEmpty, "nested \(shown) declares a type")
                let parent = Array(components.dropLast().joined(separator: [UInt8(ascii: "/")]))
                Invariant.require(folders.contains(parent), "\(shown) accepted before (or without) its folder, byte for byte")
                let item = entries[itemStarts.last ?? 0]
                Invariant.require(
                    !itemStarts.isEmpty && components[0].elementsEqual(item.path.utf8),
                    "\(shown) is not contiguous with its item")
            }
            switch entry.kind {
            case .directory:
                folders.insert(Array(path.utf8))
            case .file:
                fileIndices.append(index)
                let (sum, overflow) = total.addingReportingOverflow(entry.size)
                Invariant.require(!overflow && sum <= limits.maxTotalBytes, "total size over the limit accepted")
                total = sum
            case .symlink:
                let target = entry.linkTarget
                Invariant.require(
                    !target.isEmpty && target.utf8.first != UInt8(ascii: "/") && target.utf8.count <= limits.maxLinkTargetBytes
                        && !target.unicodeScalars.contains(where: PathRules.isForbidden),
                    "link \(shown) has the unsafe target \(target.debugDescription)")
            }
        }
        Invariant.require(manifest.fileEntryIndices == fileIndices, "fileEntryIndices \(manifest.fileEntryIndices)")
        Invariant.require(manifest.totalBytes == total, "totalBytes \(manifest.totalBytes), files add up to \(total)")
        checkItems(manifest, starts: itemStarts)
        checkLinks(manifest)
        checkRoundTrip(manifest)
    }

    private static func checkItems(_ manifest: Manifest, starts: [Int]) {
        Invariant.require(manifest.items.count == starts.count, "\(manifest.items.count) items for \(starts.count) top-level entries")
        for (number, item) in manifest.items.enumerated() where number < starts.count {
            let start = starts[number]
            let end = number + 1 < starts.count ? starts[number + 1] : manifest.entries.count
            let entry = manifest.entries[start]
            Invariant.require(item.entryRange == start..<end, "item \(number) covers \(item.entryRange), expected \(start)..<\(end)")
            Invariant.require(Invariant.sameBytes(item.name, entry.path), "item \(number) is named \(item.name.debugDescription)")
            Invariant.require(item.kind == entry.kind && item.isBundle == (entry.kind == .directory), "item \(number) kind")
            Invariant.require(Invariant.sameBytes(item.declaredType, entry.declaredType), "item \(number) type")
            let files = manifest.entries[start..<end].filter { $0.kind == .file }
            Invariant.require(item.fileCount == files.count, "item \(number) counts \(item.fileCount) files, has \(files.count)")
            Invariant.require(item.byteCount == files.reduce(0) { $0 + $1.size }, "item \(number) byte count")
            if manifest.entries.count <= 256 {
                for index in start..<end {
                    Invariant.require(manifest.itemIndex(ofEntry: index) == number, "entry \(index) is not in item \(number)")
                }
            }
        }
    }

    private static func checkLinks(_ manifest: Manifest) {
        guard manifest.entries.contains(where: { $0.kind == .symlink }) else { return }
        let model = BundleModel(manifest)
        for entry in manifest.entries where entry.kind == .symlink {
            for lookup in BundleModel.Lookup.allCases {
                if let walk = model.escape(of: entry, lookup: lookup) {
                    Invariant.require(false, "accepted link leaves its bundle (\(lookup) names): \(walk.debugDescription)")
                }
            }
        }
    }

    private static func checkRoundTrip(_ manifest: Manifest) {
        let bytes = FrameEncoder.encode(.offer(manifest))
        var decoder = FrameDecoder(capacity: bytes.count)
        decoder.append(contentsOf: bytes)
        let again: Frame?
        do { again = try decoder.next() } catch {
            Invariant.require(false, "an accepted manifest does not decode after encoding: \(error)")
            return
        }
        guard case .offer(let decoded)? = again else {
            Invariant.require(false, "an encoded manifest decodes to \(String(describing: again))")
            return
        }
        Invariant.require(decoded == manifest, "the manifest changed in an encode/decode round trip")
        Invariant.require(FrameEncoder.encode(.offer(decoded)) == bytes, "re-encoding the decoded manifest changed its bytes")
    }

    private static func isTypeIdentifier(_ text: String, limits: ManifestLimits) -> Bool {
        let bytes = Array(text.utf8)
        return !bytes.isEmpty && bytes.count <= limits.maxTypeIdentifierBytes
            && bytes.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == 0x2E || byte == 0x2D
            }
    }
}
