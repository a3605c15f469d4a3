/// Why a relative path from a peer is refused.
public enum PathProblem: Sendable, Hashable, CustomStringConvertible {
    case empty
    case absolute
    case emptyComponent
    case dotComponent
    case dotDotComponent
    case forbiddenCharacter(Unicode.Scalar)
    case tooLong(bytes: Int, limit: Int)
    case componentTooLong(bytes: Int, limit: Int)
    case tooDeep(depth: Int, limit: Int)
    case reservedName
    /// A component made only of white space and invisible characters (`" "`).
    case blankComponent
    /// A component made only of dots (`...`), perhaps with white space (`. .`).
    case dotsComponent
    /// A component a shell reads as a home folder (`~`, `~bob`).
    case homeFolderComponent

    public var description: String {
        switch self {
        case .empty: "the path is empty"
        case .absolute: "the path is absolute"
        case .emptyComponent: "the path has an empty component"
        case .dotComponent: "the path has a '.' component"
        case .dotDotComponent: "the path has a '..' component"
        case .forbiddenCharacter(let scalar):
            "the path contains the forbidden character U+\(String(scalar.value, radix: 16, uppercase: true))"
        case .tooLong(let bytes, let limit): "the path is \(bytes) bytes long (the limit is \(limit))"
        case .componentTooLong(let bytes, let limit): "a path component is \(bytes) bytes long (the limit is \(limit))"
        case .tooDeep(let depth, let limit): "the path is \(depth) folders deep (the limit is \(limit))"
        case .reservedName: "names beginning with '.share-' are reserved for the receiver"
        case .blankComponent: "a name in the path is only white space or invisible characters"
        case .dotsComponent: "a name in the path is only dots"
        case .homeFolderComponent: "a name in the path begins with '~', which a shell reads as a home folder"
        }
    }
}
