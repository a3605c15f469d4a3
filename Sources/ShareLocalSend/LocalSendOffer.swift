public import ShareDocuments

/// A `prepare-upload` request as share's own offer: the sender's files as a ``Manifest`` (a name
/// with folders, `Trip/day 1.jpg`, makes the folder `Trip` an item holding it), so that LocalSend
/// transfers go through the same staging, limits, commit and type registry as share's own; and, for
/// each of the manifest's files, the sender's file id and SHA-256.
public struct LocalSendOffer: Sendable {
    /// The files as share's offer: folders first, each item's entries together, files 0644 and folders 0755.
    public let manifest: Manifest
    /// For the k-th file of ``manifest``, the sender's file id.
    public let fileIDs: [String]
    /// For the k-th file of ``manifest``, the SHA-256 the sender gave (nil: it gave none).
    public let digests: [[UInt8]?]
    /// For each file id, its index among ``manifest``'s files.
    public let fileIndices: [String: Int]

    /// Builds the offer of `request`, its files dated `modificationSeconds` (LocalSend senders send
    /// no reliable time).
    ///
    /// - Throws: ``LocalSendMessageError/invalidField(_:_:)`` when the names cannot be one offer (a
    ///   name that is both a file and a folder, names that differ only in their folders' case are
    ///   fine), or a rule of share's offers is broken.
    public init(_ request: LocalSendUploadRequest, modificationSeconds: Int64) throws(LocalSendMessageError) {
        let root = Node()
        for file in request.files {
            let components = PathRules.components(of: file.fileName).map(String.init)
            var node = root
            for component in components.dropLast() {
                if node.children[component] == nil { node.children[component] = Node() }
                node = node.children[component]!
                if node.file != nil { throw Self.clash(file.fileName) }
            }
            guard let last = components.last else { throw .invalidField("fileName", "a name is empty") }
            if let existing = node.children[last], existing.file != nil || !existing.children.isEmpty {
                throw Self.clash(file.fileName)
            }
            let leaf = Node()
            leaf.file = file
            node.children[last] = leaf
        }
        var entries: [ManifestEntry] = []
        var files: [LocalSendUploadRequest.File] = []
        func walk(_ node: Node, path: String) {
            for name in node.children.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
                let child = node.children[name]!
                let childPath = path.isEmpty ? name : path + "/" + name
                if let file = child.file {
                    entries.append(
                        ManifestEntry(
                            kind: .file, path: childPath, mode: 0o644, modificationSeconds: modificationSeconds, size: file.size))
                    files.append(file)
                } else {
                    entries.append(ManifestEntry(kind: .directory, path: childPath, mode: 0o755, modificationSeconds: modificationSeconds))
                    walk(child, path: childPath)
                }
            }
        }
        walk(root, path: "")
        do {
            manifest = try Manifest(entries: entries)
        } catch {
            throw .invalidField("files", error.description)
        }
        fileIDs = files.map(\.id)
        digests = files.map(\.sha256)
        fileIndices = Dictionary(uniqueKeysWithValues: files.enumerated().map { ($0.element.id, $0.offset) })
    }

    private static func clash(_ name: String) -> LocalSendMessageError {
        .invalidField("fileName", "'\(DisplayText.escape(name))' is offered as a file and as a folder")
    }

    /// A folder or file of the name tree.
    private final class Node {
        var children: [String: Node] = [:]
        var file: LocalSendUploadRequest.File?
    }
}
