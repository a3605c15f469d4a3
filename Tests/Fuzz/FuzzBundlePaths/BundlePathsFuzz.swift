import FuzzSupport
import ShareDocuments

/// libFuzzer entry point: `input` holds paths and link targets, see ``BundlePathsFuzz``.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBundlePaths(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    BundlePathsFuzz.run(UnsafeBufferPointer(start: data, count: count))
    return 0
}

/// Fuzzes the path rules, link confinement and alternative names (docs/PROTOCOL.md §4, §6).
///
/// The input is a list of records separated by the byte 0xFF (never part of UTF-8). A record is a
/// selector byte, then a path, then optionally 0xFE and a link target; invalid UTF-8 is repaired
/// to U+FFFD. The selector picks the kind (file, folder, link: `selector % 3`) and whether the path
/// is placed inside the bundle `B` (`selector < 0x80`) or used as it is (another item).
///
/// For every path: `PathRules.problem(in:)` accepts it exactly when the protocol's rules, checked on
/// bytes (``BytePathOracle``), accept it; `DisplayText.escape` makes it printable; an accepted
/// single name has alternative names (`Name (2).ext`) that are accepted too, fit in 255 bytes and
/// differ from it. Then the records become a manifest (missing parent folders added, each item's
/// entries kept together): if `Manifest` accepts it, ``ManifestInvariants`` must hold; above all,
/// no accepted link may resolve, as the kernel would walk it, to a place outside its bundle.
enum BundlePathsFuzz {
    static let maxEntries = 256

    static func run(_ input: UnsafeBufferPointer<UInt8>) {
        var builder = BundleBuilder()
        for record in input.split(separator: 0xFF, omittingEmptySubsequences: true) {
            let selector = record[record.startIndex]
            let body = record.dropFirst()
            let pathBytes = body.prefix { $0 != 0xFE }
            let path = String(decoding: pathBytes, as: UTF8.self)
            let target = pathBytes.count < body.count ? String(decoding: body[(pathBytes.endIndex + 1)...], as: UTF8.self) : ""
            checkPath(path)
            if !target.isEmpty { checkPath(target) }
            let kind: EntryKind = [.file, .directory, .symlink][Int(selector % 3)]
            builder.add(kind: kind, path: selector < 0x80 ? "B/" + path : path, target: target)
            if builder.count >= maxEntries { break }
        }
        let entries = builder.entries
        guard entries.count > 1 else { return }
        do {
            let manifest = try Manifest(entries: entries)
            ManifestInvariants.check(manifest)
        } catch {
            Invariant.requirePrintable(error.description, "a manifest refusal")
        }
    }

    static func checkPath(_ path: String) {
        let rules = PathRules.problem(in: path)
        let oracle = BytePathOracle.problem(in: path)
        Invariant.require(
            (rules == nil) == (oracle == nil),
            "PathRules says \(rules.map(String.init(describing:)) ?? "fine"), the protocol's rules on bytes say "
                + "\(oracle ?? "fine"), for \(path.debugDescription) \(Array(path.unicodeScalars.map(\.value)))")

        let escaped = DisplayText.escape(path)
        Invariant.requirePrintable(escaped, "DisplayText.escape")
        let spaced = path.unicodeScalars.first?.properties.isWhitespace == true || path.unicodeScalars.last?.properties.isWhitespace == true
        if !path.unicodeScalars.contains(where: DisplayText.isUnsafe) && !spaced {
            Invariant.require(Invariant.sameBytes(escaped, path), "DisplayText.escape changed the safe text \(path.debugDescription)")
        }

        guard rules == nil, !path.utf8.contains(UInt8(ascii: "/")) else { return }
        let (stem, ext) = AlternativeName.split(path)
        Invariant.require(Invariant.sameBytes(stem + ext, path), "split(\(path.debugDescription)) = (\(stem.debugDescription), \(ext.debugDescription))")
        for number in [2, 10, 12_345] {
            let candidate = AlternativeName.candidate(for: path, number: number)
            if let problem = BytePathOracle.problem(in: candidate) {
                Invariant.require(false, "alternative name \(candidate.debugDescription) of \(path.debugDescription) has \(problem)")
            }
            Invariant.require(!Invariant.sameBytes(candidate, path), "alternative name equals \(path.debugDescription)")
        }
    }
}
