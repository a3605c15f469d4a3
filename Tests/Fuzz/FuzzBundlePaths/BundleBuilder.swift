import FuzzSupport
import ShareDocuments

/// Turns fuzzed records into entries that stand a chance of forming a valid manifest: missing
/// parent folders are added (byte for byte), paths the rules refuse or that collide are dropped, and
/// the entries of each item are kept together in the order they came.
struct BundleBuilder {
    private var items: [[ManifestEntry]] = []
    private var itemIndex: [[UInt8]: Int] = [:]
    private var taken: [String: [UInt8]] = [:]
    private(set) var count = 0

    init() {
        add(kind: .directory, path: "B", target: "")
    }

    var entries: [ManifestEntry] { items.flatMap { $0 } }

    mutating func add(kind: EntryKind, path: String, target: String) {
        guard PathRules.problem(in: path) == nil, BytePathOracle.problem(in: path) == nil else { return }
        let components = BytePathOracle.components(of: path)
        var prefixes: [[UInt8]] = []
        for depth in 1...components.count {
            prefixes.append(Array(components[0..<depth].joined(separator: [UInt8(ascii: "/")])))
        }
        // Every proper prefix must be a folder we have, or be free to become one.
        var missing: [[UInt8]] = []
        for prefix in prefixes.dropLast() {
            let key = PathRules.collisionKey(String(decoding: prefix, as: UTF8.self))
            if let existing = taken[key] {
                guard existing == prefix, isFolder(prefix) else { return }
            } else {
                missing.append(prefix)
            }
        }
        guard taken[PathRules.collisionKey(path)] == nil else { return }
        let top = components[0]
        let item: Int
        if let known = itemIndex[top] {
            item = known
        } else {
            item = items.count
            items.append([])
            itemIndex[top] = item
        }
        for prefix in missing {
            let folder = String(decoding: prefix, as: UTF8.self)
            items[item].append(ManifestEntry(kind: .directory, path: folder, mode: 0o755))
            taken[PathRules.collisionKey(folder)] = prefix
            count += 1
        }
        items[item].append(
            ManifestEntry(kind: kind, path: path, mode: kind == .directory ? 0o755 : 0o644, linkTarget: kind == .symlink ? target : ""))
        taken[PathRules.collisionKey(path)] = Array(path.utf8)
        count += 1
    }

    private func isFolder(_ path: [UInt8]) -> Bool {
        guard let item = path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).first,
            let index = itemIndex[Array(item)]
        else { return false }
        return items[index].contains { $0.kind == .directory && $0.path.utf8.elementsEqual(path) }
    }
}
