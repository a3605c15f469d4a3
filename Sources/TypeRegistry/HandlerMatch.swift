/// How a document type claim matched a type.
public enum HandlerMatch: Hashable, Sendable, CustomStringConvertible {
    /// The claim lists the type (distance 0) or a type it conforms to (distance = conformance steps).
    case contentType(TypeIdentifier, distance: Int)
    /// The claim lists the file's extension (or one of the type's extensions).
    case filenameExtension(String)
    /// The claim lists one of the type's MIME types (distance as for content types).
    case mimeType(String, distance: Int)
    /// A claim of any file: `*`, `public.data`, `public.item` or `public.content`.
    case wildcard(TypeIdentifier)

    /// Whether this is a wildcard match, which ranks below every specific match.
    public var isWildcard: Bool {
        if case .wildcard = self { true } else { false }
    }

    /// Conformance steps between the type and what the claim names; 0 for exact matches.
    public var distance: Int {
        switch self {
        case .contentType(_, let distance), .mimeType(_, let distance): distance
        case .filenameExtension: 0
        case .wildcard: Int.max
        }
    }

    /// `public.image (2 steps up)`, `extension .png`, `any file (public.data)`, ….
    public var description: String {
        switch self {
        case .contentType(let type, 0): "\(type)"
        case .contentType(let type, 1): "\(type) (1 step up)"
        case .contentType(let type, let distance): "\(type) (\(distance) steps up)"
        case .filenameExtension(let ext): "extension .\(ext)"
        case .mimeType(let mime, 0): "MIME type \(mime)"
        case .mimeType(let mime, let distance): "MIME type \(mime) (\(distance) steps up)"
        case .wildcard(let type): "any file (\(type == .item ? "*" : type.rawValue))"
        }
    }
}
