public import TypeRegistry

/// The types a sender declares in its offer (docs/PROTOCOL.md §4, OFFER `type`), from its own registry.
public enum OfferTypes {
    /// The declared type of a local item: the registry's resolution from its name and first
    /// 4 KiB (a folder: its package type, or `public.folder`). Empty when the type is unresolved
    /// (dynamic, or merely `public.data`), and when only the content decided it (the sender does
    /// not know the name's type, and the receiver sniffs the same bytes itself): the declared type
    /// is a hint for what the name means, which the receiver checks against the content anyway.
    /// - Parameters:
    ///   - path: the item's local path.
    ///   - isDirectory: whether it is a folder.
    ///   - registry: the sender's registry.
    public static func declaredType(forItemAt path: String, isDirectory: Bool, registry: TypeRegistry) -> String {
        let content = isDirectory ? nil : DocumentImporter.readPrefix(path)
        let resolution = registry.resolve(
            ResolutionRequest(fileName: path, isDirectory: isDirectory, content: content))
        guard resolution.isResolved, !resolution.type.isDynamic, resolution.basis != .content,
            resolution.basis != .fallback
        else { return "" }
        return resolution.type.rawValue
    }
}

extension PreparedSend {
    /// Scans `paths` into an offer whose items carry their types as `registry` resolves them.
    /// - Throws: ``SendError``.
    public static func scan(_ paths: [String], registry: TypeRegistry) throws(SendError) -> PreparedSend {
        try scan(paths) { path, isDirectory in
            OfferTypes.declaredType(forItemAt: path, isDirectory: isDirectory, registry: registry)
        }
    }
}
