public import TypeRegistry

/// The types a sender declares in its offer (docs/PROTOCOL.md §4, OFFER `type`), from its own registry.
public enum OfferTypes {
    /// The declared type of a local item: what its name means to the registry (a folder: its
    /// package type, or `public.folder`). Empty when the name says nothing more specific than
    /// `public.data` (or only a dynamic type): the receiver sniffs the content itself. The content
    /// is not read: the declared type is a hint about the name, which the receiver checks against
    /// the content anyway.
    /// - Parameters:
    ///   - path: the item's local path.
    ///   - isDirectory: whether it is a folder.
    ///   - registry: the sender's registry.
    public static func declaredType(forItemAt path: String, isDirectory: Bool, registry: TypeRegistry) -> String {
        let resolution = registry.resolve(ResolutionRequest(fileName: path, isDirectory: isDirectory))
        guard resolution.isResolved, !resolution.type.isDynamic, resolution.basis != .content,
            resolution.basis != .fallback
        else { return "" }
        return resolution.type.rawValue
    }
}

extension PreparedSend {
    /// Scans `paths` into an offer whose items carry their types as `registry` resolves them.
    /// - Throws: ``SendError``.
    public static func scan(_ paths: [String], options: ScanOptions = ScanOptions(), registry: TypeRegistry) throws(SendError)
        -> PreparedSend
    {
        try scan(paths, options: options) { path, isDirectory in
            OfferTypes.declaredType(forItemAt: path, isDirectory: isDirectory, registry: registry)
        }
    }
}
