/// What a person should know about one item of an offer before accepting it: what is hidden,
/// where its links point, what is marked executable. Computed from the parsed offer itself, the
/// same entries the receiver writes.
public struct ItemDetails: Sendable, Hashable {
    /// Entries whose name (or a folder above them inside the item) starts with a dot.
    public var hiddenEntries: Int
    /// The paths of the first hidden entries (at most `namedHiddenEntries`), so a prompt can name them.
    public var hiddenPaths: [String]
    /// Each link inside the item, with its target.
    public var links: [(path: String, target: String)]
    /// Files marked executable (any of the 0o111 bits).
    public var executables: Int

    /// How many hidden entries an item's details name; the rest are counted.
    public static let namedHiddenEntries = 5

    /// The details of `item` in `manifest`.
    public init(of item: ManifestItem, in manifest: Manifest) {
        var hidden = 0
        var hiddenPaths: [String] = []
        var links: [(String, String)] = []
        var executables = 0
        for entry in manifest.entries[item.entryRange] {
            let components = PathRules.components(of: entry.path).dropFirst()
            if components.contains(where: { $0.utf8.first == UInt8(ascii: ".") }) {
                hidden += 1
                if hiddenPaths.count < Self.namedHiddenEntries { hiddenPaths.append(entry.path) }
            }
            switch entry.kind {
            case .symlink: links.append((entry.path, entry.linkTarget))
            case .file, .note: if entry.mode & 0o111 != 0 { executables += 1 }
            case .directory: break
            }
        }
        hiddenEntries = hidden
        self.hiddenPaths = hiddenPaths
        self.links = links
        self.executables = executables
    }

    public static func == (a: ItemDetails, b: ItemDetails) -> Bool {
        a.hiddenEntries == b.hiddenEntries && a.hiddenPaths == b.hiddenPaths && a.executables == b.executables
            && a.links.map(\.path) == b.links.map(\.path) && a.links.map(\.target) == b.links.map(\.target)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(hiddenEntries)
        hasher.combine(hiddenPaths)
        hasher.combine(executables)
        for link in links {
            hasher.combine(link.path)
            hasher.combine(link.target)
        }
    }
}
