public import ShareDocuments
import ShareWire

/// What every manifest that `Manifest.init` accepts must satisfy (docs/PROTOCOL.md §4), checked
/// independently of the code that validated it: on bytes, the way the receiver's filesystem sees
/// the paths.
public enum ManifestInvariants {
    /// Traps (see ``Invariant``) if `manifest` breaks a rule of the protocol or does not survive an
    /// OFFER encode/decode round trip byte for byte.
    public static func check(_ manifest: Manifest, limits: ManifestLimits = .protocolDefault) {
        let entries = manifest.entries
        Invariant.require(!entries.isEmpty && entries.count <= limits.maxEntries, "\(entries.count) entries accepted")
        Invariant.require(manifest.items.count <= limits.maxItems, "\(manifest.items.count) items accepted")

        var exactPaths = Set<[UInt8]>()
        var keys = Set<String>()
        var collides = false
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
            Invariant.require(exactPaths.insert(Array(path.utf8)).inserted, "\(shown) is listed twice, byte for byte")
            if !keys.insert(PathRules.collisionKey(path)).inserted { collides = true }
            Invariant.require(entry.mode & ~0o777 == 0, "\(shown) has mode \(String(entry.mode, radix: 8))")
            Invariant.require(entry.modificationNanoseconds < 1_000_000_000, "\(shown) has invalid nanoseconds")
            Invariant.require(entry.kind.isRegularFile || entry.size == 0, "\(shown) is a \(entry.kind) with a size")
            if entry.kind == .note {
                Invariant.require(components(path) == 1, "nested note \(shown) accepted")
                Invariant.require(
                    entry.content.count <= limits.maxNoteBytes && UInt64(entry.content.count) == entry.size
                        && String(validating: entry.content, as: UTF8.self) != nil,
                    "note \(shown) has unsafe content")
            } else {
                Invariant.require(entry.content.isEmpty, "\(shown) is a \(entry.kind) with content")
            }
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
            case .file, .note:
                if entry.kind == .file { fileIndices.append(index) }
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
        Invariant.require(collides == !manifest.caseCollisions.isEmpty, "case collisions not reported as such")
        checkItems(manifest, starts: itemStarts)
        checkLinks(manifest, caseInsensitiveToo: !collides)
        checkRoundTrip(manifest)
    }

    private static func components(_ path: String) -> Int { BytePathOracle.components(of: path).count }

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
            let files = manifest.entries[start..<end].filter { $0.kind.isRegularFile }
            Invariant.require(item.fileCount == files.count, "item \(number) counts \(item.fileCount) files, has \(files.count)")
            Invariant.require(item.byteCount == files.reduce(0) { $0 + $1.size }, "item \(number) byte count")
            if manifest.entries.count <= 256 {
                for index in start..<end {
                    Invariant.require(manifest.itemIndex(ofEntry: index) == number, "entry \(index) is not in item \(number)")
                }
            }
        }
    }

    /// Every link stays inside its bundle when names are looked up byte for byte, and also ignoring
    /// case, unless two names collide that way (then no case-insensitive folder can hold the offer).
    private static func checkLinks(_ manifest: Manifest, caseInsensitiveToo: Bool) {
        guard manifest.entries.contains(where: { $0.kind == .symlink }) else { return }
        let model = BundleModel(manifest)
        let lookups: [BundleModel.Lookup] = caseInsensitiveToo ? BundleModel.Lookup.allCases : [.exactBytes]
        for entry in manifest.entries where entry.kind == .symlink {
            for lookup in lookups {
                if let walk = model.escape(of: entry, lookup: lookup) {
                    Invariant.require(false, "accepted link leaves its bundle (\(lookup) names): \(walk.debugDescription)")
                }
            }
        }
    }

    private static func checkRoundTrip(_ manifest: Manifest) {
        let frames = OfferCodec.frames(for: manifest)
        var decoder = FrameDecoder(capacity: 1 << 16)
        var entries: [ManifestEntry] = []
        var start: OfferStart?
        for frame in frames {
            decoder.append(contentsOf: FrameEncoder.encode(frame))
            let again: Frame?
            do { again = try decoder.next() } catch {
                Invariant.require(false, "an accepted manifest does not decode after encoding: \(error)")
                return
            }
            switch again {
            case .offer(let header, let more)?:
                start = header
                entries += more
            case .entries(let more)?:
                entries += more
            default:
                Invariant.require(false, "an encoded manifest decodes to \(String(describing: again))")
                return
            }
            Invariant.require(again == frame, "an OFFER or ENTRIES frame changed in a round trip")
        }
        Invariant.require(start == OfferCodec.start(manifest), "the OFFER header changed in a round trip")
        let decoded = try? Manifest(entries: entries, declaredTotal: start?.totalBytes)
        Invariant.require(decoded == manifest, "the manifest changed in an encode/decode round trip")
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
