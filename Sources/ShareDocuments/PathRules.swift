/// The rules every relative path from the network must pass (docs/PROTOCOL.md §4).
///
/// These checks are the first line; the receiver also opens every file beneath its staging
/// folder's descriptor with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`, so a path that got
/// past them still could not leave the folder.
public enum PathRules {
    /// The prefix reserved for the receiver's own folders.
    public static let reservedPrefix = ".share-"

    /// Returns the first problem with `path`, or nil when it is acceptable.
    public static func problem(in path: String, limits: ManifestLimits = .protocolV1) -> PathProblem? {
        let bytes = path.utf8.count
        if bytes == 0 { return .empty }
        if bytes > limits.maxPathBytes { return .tooLong(bytes: bytes, limit: limits.maxPathBytes) }
        if path.utf8.first == UInt8(ascii: "/") { return .absolute }
        for scalar in path.unicodeScalars where isForbidden(scalar) {
            return .forbiddenCharacter(scalar)
        }
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        if components.count > limits.maxDepth { return .tooDeep(depth: components.count, limit: limits.maxDepth) }
        for component in components {
            if let problem = problem(inComponent: component, limits: limits) { return problem }
        }
        if let first = components.first, first.hasPrefix(reservedPrefix) { return .reservedName }
        return nil
    }

    /// Returns the problem with a single path component, or nil.
    public static func problem(inComponent component: Substring, limits: ManifestLimits = .protocolV1) -> PathProblem? {
        if component.isEmpty { return .emptyComponent }
        if component == "." { return .dotComponent }
        if component == ".." { return .dotDotComponent }
        let bytes = component.utf8.count
        if bytes > limits.maxComponentBytes { return .componentTooLong(bytes: bytes, limit: limits.maxComponentBytes) }
        return nil
    }

    /// NUL, every control character and the backslash are refused in paths.
    public static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x5C: true
        default: false
        }
    }

    /// The key under which two paths collide on a case-insensitive or normalizing filesystem.
    ///
    /// Swift compares strings by canonical equivalence, so `é` and `e` + U+0301 already produce the
    /// same key; lowercasing adds case folding.
    public static func collisionKey(_ path: String) -> String { path.lowercased() }
}
