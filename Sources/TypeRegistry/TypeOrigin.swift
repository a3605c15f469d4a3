/// Where the registry's definition of a type comes from.
public enum TypeOrigin: Hashable, Sendable, CustomStringConvertible {
    /// One of the system-declared types built into this library.
    case builtin
    /// A MIME type of the freedesktop shared-mime-info database that no declared type claims.
    case sharedMimeInfo(mimeType: String)
    /// A registered application's manifest.
    case application(id: String, declaration: DeclarationKind)
    /// Made up for an undeclared tag (see ``DynamicType``).
    case dynamic

    /// A short text for listings: `builtin`, `shared-mime-info`, `app com.example (exported)`, `dynamic`.
    public var description: String {
        switch self {
        case .builtin: "builtin"
        case .sharedMimeInfo(let mimeType): "shared-mime-info (\(mimeType))"
        case .application(let id, let declaration): "app \(id) (\(declaration.rawValue))"
        case .dynamic: "dynamic"
        }
    }
}
