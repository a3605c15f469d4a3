/// What a filename pattern of the registry names: a type, and the shared-mime-info MIME type
/// whose glob it is (`nil` for an extension a manifest or the built-in table declares).
struct GlobTarget: Hashable, Sendable {
    /// The type files matching the pattern get.
    let type: TypeIdentifier
    /// The canonical MIME type of the shared-mime-info glob, if it is one.
    let mimeType: String?
}
