public import ShareDocuments

/// The folders, files and links a validated manifest creates, and how the kernel would resolve a
/// link's target among them.
///
/// This is the property `LinkResolver` exists for, checked the way `open(2)` walks a path: the
/// target's components are taken between `/` bytes; a `..` at the bundle's top folder leaves it; a
/// link met on the way (also as the last component) is replaced by its target, at most 40 times
/// (then the kernel says ELOOP); a name that does not exist, or a file with more components after
/// it, ends the walk inside the bundle (ENOENT, ENOTDIR). Names are looked up either byte for byte
/// (ext4, the usual case) or ignoring case and Unicode form (ext4 with casefold, or a receive folder
/// on a case-insensitive filesystem), the two behaviours the collision rule of PROTOCOL.md §4 is
/// written for.
public struct BundleModel {
    /// How names are compared when a path is looked up.
    public enum Lookup: CaseIterable, Sendable {
        /// Byte for byte, like ext4, xfs, btrfs.
        case exactBytes
        /// Ignoring case and Unicode normalization (ext4 casefold): the manifest's collision key.
        case caseAndFormInsensitive
    }

    private var exact: [[UInt8]: ManifestEntry] = [:]
    private var folded: [String: ManifestEntry] = [:]

    /// The kernel's limit on links followed in one path walk.
    public static let maxLinkFollows = 40

    /// Builds the tree of `manifest`.
    public init(_ manifest: Manifest) {
        for entry in manifest.entries {
            exact[Array(entry.path.utf8)] = entry
            folded[PathRules.collisionKey(entry.path)] = entry
        }
    }

    /// Follows the link `link` as the kernel would; returns a description of the walk when it ends
    /// up outside the link's bundle (a `..` at the bundle's top folder), nil when it stays inside.
    public func escape(of link: ManifestEntry, lookup: Lookup) -> String? {
        let dot: [UInt8] = [0x2E]
        let dotDot: [UInt8] = [0x2E, 0x2E]
        var folder = BytePathOracle.components(of: link.path).dropLast().map { $0 }
        guard !folder.isEmpty else { return "a top-level link" }
        var pending = Self.targetComponents(link.linkTarget).reversed().map { $0 }
        if link.linkTarget.utf8.first == UInt8(ascii: "/") { return "an absolute target" }
        var follows = 0
        var walk: [String] = [link.path + " -> " + link.linkTarget]
        while let component = pending.popLast() {
            if component == dot { continue }
            if component == dotDot {
                if folder.count == 1 { return (walk + ["'..' above " + Self.text(folder)]).joined(separator: ", ") }
                folder.removeLast()
                continue
            }
            guard let entry = find(folder + [component], lookup: lookup) else { return nil }
            switch entry.kind {
            case .directory:
                folder = BytePathOracle.components(of: entry.path)
            case .file, .note:
                return nil
            case .symlink:
                follows += 1
                if follows > Self.maxLinkFollows { return nil }
                if entry.linkTarget.utf8.first == UInt8(ascii: "/") { return "a link to an absolute target" }
                walk.append(entry.path + " -> " + entry.linkTarget)
                pending.append(contentsOf: Self.targetComponents(entry.linkTarget).reversed())
            }
        }
        return nil
    }

    private func find(_ components: [[UInt8]], lookup: Lookup) -> ManifestEntry? {
        let path = Array(components.joined(separator: [UInt8(ascii: "/")]))
        switch lookup {
        case .exactBytes: return exact[path]
        case .caseAndFormInsensitive: return folded[PathRules.collisionKey(String(decoding: path, as: UTF8.self))]
        }
    }

    private static func targetComponents(_ target: String) -> [[UInt8]] {
        Array(target.utf8).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map(Array.init)
    }

    private static func text(_ components: [[UInt8]]) -> String {
        String(decoding: Array(components.joined(separator: [UInt8(ascii: "/")])), as: UTF8.self)
    }
}
