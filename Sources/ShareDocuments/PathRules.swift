/// The rules every relative path from the network must pass (docs/PROTOCOL.md §4).
///
/// Paths are taken apart the way the kernel does: components are what lies between `/` scalars, and
/// `.` and `..` are compared byte for byte. Never with `String.split(separator: "/")`: that splits
/// on `Character`s, and a `/` followed by a combining mark (`/` U+0301) or preceded by a prepended
/// concatenation mark (U+0600 `/`) is one `Character`, so the `..` in `x\u{600}/..` would be hidden.
///
/// These checks are the first line; the receiver also opens every file beneath its staging
/// folder's descriptor with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`, so a path that got
/// past them still could not leave the folder.
public enum PathRules {
    /// The prefix reserved for the receiver's own folders.
    public static let reservedPrefix = ".share-"

    /// Returns the first problem with `path`, or nil when it is acceptable.
    public static func problem(in path: String, limits: ManifestLimits = .protocolDefault) -> PathProblem? {
        // Most paths are plain: one pass over their bytes, without taking them apart, shows it.
        if isPlain(path, limits: limits) { return nil }
        return problemTakingApart(path, limits: limits)
    }

    /// Whether `path` certainly has no problem, judged in one pass over its UTF-8 bytes (false: it
    /// may have one, which ``problemTakingApart(_:limits:)`` finds and names).
    ///
    /// Checking an offer of 10,000 entries took the receiver and the sender each several
    /// milliseconds before, most of it splitting every path into an array of components.
    static func isPlain(_ path: String, limits: ManifestLimits) -> Bool {
        let utf8 = path.utf8
        let count = utf8.count
        guard count > 0, count <= limits.maxPathBytes, utf8.first != UInt8(ascii: "/") else { return false }
        let dot = UInt8(ascii: ".")
        let tilde = UInt8(ascii: "~")
        var depth = 1
        var length = 0  // of the current component
        // Whether the current component has a printable ASCII character other than the dot: it is
        // then certainly not made only of dots, white space and invisible characters.
        var visible = false
        for byte in utf8 {
            // Controls, DEL and the backslash are forbidden; 0xC2 starts the C1 controls (U+0080-U+009F)
            // and other scalars: leave all of them to the full check.
            if byte < 0x20 || byte == 0x7F || byte == 0x5C || byte == 0xC2 { return false }
            if byte == UInt8(ascii: "/") {
                if length == 0 || length > limits.maxComponentBytes || !visible { return false }
                depth += 1
                length = 0
                visible = false
                continue
            }
            // A component that begins with `~` may be a shell's home folder: the full check decides.
            if length == 0 && byte == tilde { return false }
            length += 1
            if byte > 0x20 && byte < 0x7F && byte != dot { visible = true }
        }
        if length == 0 || length > limits.maxComponentBytes || !visible { return false }
        if depth > limits.maxDepth { return false }
        return !utf8.starts(with: reservedPrefix.utf8)
    }

    /// ``problem(in:limits:)``, taking the path apart into its components.
    static func problemTakingApart(_ path: String, limits: ManifestLimits) -> PathProblem? {
        let bytes = path.utf8.count
        if bytes == 0 { return .empty }
        if bytes > limits.maxPathBytes { return .tooLong(bytes: bytes, limit: limits.maxPathBytes) }
        if path.utf8.first == UInt8(ascii: "/") { return .absolute }
        for scalar in path.unicodeScalars where isForbidden(scalar) {
            return .forbiddenCharacter(scalar)
        }
        let components = Self.components(of: path)
        if components.count > limits.maxDepth { return .tooDeep(depth: components.count, limit: limits.maxDepth) }
        for component in components {
            if let problem = problem(inComponent: component, limits: limits) { return problem }
        }
        if let first = components.first, first.utf8.starts(with: reservedPrefix.utf8) { return .reservedName }
        return nil
    }

    /// Returns the problem with a single path component, or nil.
    public static func problem(inComponent component: Substring, limits: ManifestLimits = .protocolDefault) -> PathProblem? {
        if component.isEmpty { return .emptyComponent }
        if isDot(component) { return .dotComponent }
        if isDotDot(component) { return .dotDotComponent }
        let bytes = component.utf8.count
        if bytes > limits.maxComponentBytes { return .componentTooLong(bytes: bytes, limit: limits.maxComponentBytes) }
        if let problem = unnamedProblem(component) { return problem }
        if looksLikeHomeFolder(component) { return .homeFolderComponent }
        return nil
    }

    /// A component that is no name a person can see or type: only white space and invisible
    /// characters (`" "`, U+3000, U+200B) is ``PathProblem/blankComponent``; only dots besides them
    /// (`...`, `. .`) is ``PathProblem/dotsComponent`` (`.` and `..` are checked before).
    static func unnamedProblem(_ component: Substring) -> PathProblem? {
        var dots = 0
        for scalar in component.unicodeScalars {
            if scalar == "." {
                dots += 1
            } else if !isBlank(scalar) {
                return nil
            }
        }
        return dots == 0 ? .blankComponent : .dotsComponent
    }

    /// White space (Unicode `White_Space`) and characters drawn as nothing (`Default_Ignorable_Code_Point`:
    /// zero-width spaces and joiners, U+FEFF, the Hangul fillers).
    public static func isBlank(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isWhitespace || scalar.properties.isDefaultIgnorableCodePoint
    }

    /// Whether a shell reads `component`, typed at the start of a word, as a home folder or a
    /// folder of its own: `~` alone; followed by a user name as systems make them (a letter or
    /// `_`, then letters, digits, `_` and `-`: `~bob`, `~root`); or by the folder-stack forms
    /// (`~+`, `~-`, `~2`, `~+1`, `~-1`). `~$Report.docx`, `~WRL0001.tmp`, `~.txt` and `backup~`
    /// are names: no shell expands them (a dot is in no user name `useradd` accepts by default).
    public static func looksLikeHomeFolder(_ component: Substring) -> Bool {
        var rest = component.unicodeScalars.dropFirst(0)
        guard rest.first == "~" else { return false }
        rest = rest.dropFirst()
        guard let first = rest.first else { return true }
        func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }
        if first == "+" || first == "-" { return rest.dropFirst().allSatisfy(isDigit) }
        if isDigit(first) { return rest.allSatisfy(isDigit) }
        guard ("a"..."z").contains(first) || ("A"..."Z").contains(first) || first == "_" else { return false }
        return rest.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || isDigit($0) || $0 == "_" || $0 == "-" }
    }

    /// The components of `path`: the text between `/` scalars, as the kernel splits it (see the
    /// type's discussion for why not `Character`s).
    /// - Parameter omittingEmpty: drops empty components (`a//b` has two), as a link target's walk does.
    public static func components(of path: String, omittingEmpty: Bool = false) -> [Substring] {
        path.unicodeScalars.split(separator: "/", omittingEmptySubsequences: omittingEmpty).map(Substring.init)
    }

    /// Whether `component` is exactly `.` (byte for byte).
    public static func isDot(_ component: Substring) -> Bool {
        component.utf8.elementsEqual(CollectionOfOne(UInt8(ascii: ".")))
    }

    /// Whether `component` is exactly `..` (byte for byte).
    public static func isDotDot(_ component: Substring) -> Bool {
        component.utf8.elementsEqual(repeatElement(UInt8(ascii: "."), count: 2))
    }

    /// NUL, every control character and the backslash are refused in paths.
    public static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x5C: true
        default: false
        }
    }

    /// A path compared byte for byte, as the kernel compares names (Swift's `String` equality would
    /// equate canonically equivalent spellings such as `é` and `e` + U+0301).
    public struct ExactKey: Hashable, Sendable {
        /// The path's UTF-8 bytes.
        public let bytes: [UInt8]
        /// The key of `path`.
        public init(_ path: some StringProtocol) { bytes = Array(path.utf8) }
    }

    /// The key under which two paths collide on a case-insensitive or normalizing filesystem.
    ///
    /// Swift compares strings by canonical equivalence, so `é` and `e` + U+0301 already produce the
    /// same key; lowercasing adds case folding.
    public static func collisionKey(_ path: String) -> String { path.lowercased() }
}
