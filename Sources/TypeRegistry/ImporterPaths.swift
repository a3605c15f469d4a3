/// The directories an importer's relative and `~` paths are resolved against.
public struct ImporterPaths: Hashable, Sendable {
    /// The absolute directory relative paths start from, usually the manifest's folder.
    public var baseDirectory: String
    /// The absolute home directory `~` stands for.
    public var homeDirectory: String

    /// Creates the resolution context.
    /// - Parameters:
    ///   - baseDirectory: an absolute directory; relative `Folder` and program paths start here.
    ///   - homeDirectory: an absolute directory that `~` expands to.
    public init(baseDirectory: String, homeDirectory: String) {
        self.baseDirectory = baseDirectory
        self.homeDirectory = homeDirectory
    }

    /// Resolves a path as written in a manifest to an absolute, lexically normalised path.
    ///
    /// `~` and `~/…` expand to the home directory, an absolute path is kept, anything else is
    /// relative to the base directory; `.` and `..` are resolved without touching the disk.
    /// `~user` forms and `$VARIABLES` are refused rather than guessed at.
    /// - Returns: the absolute path, or `nil` with the reason in `problem`.
    func resolve(_ path: String) -> (path: String?, problem: String?) {
        let text = path.trimmingTypeWhitespace()
        if text.isEmpty { return (nil, "the path is empty") }
        if text.contains("\0") { return (nil, "the path contains a NUL character") }
        if text.contains("$") {
            return (nil, "'\(text)' uses a variable; variables are not expanded, write ~ or an absolute path")
        }
        let joined: String
        if text == "~" {
            joined = homeDirectory
        } else if text.hasPrefix("~/") {
            joined = homeDirectory + "/" + text.dropFirst(2)
        } else if text.hasPrefix("~") {
            return (nil, "'\(text)' names another user's home; only ~ and ~/… are supported")
        } else if text.hasPrefix("/") {
            joined = text
        } else {
            joined = baseDirectory + "/" + text
        }
        guard joined.hasPrefix("/") else {
            return (
                nil, "'\(text)' does not resolve to an absolute path (base '\(baseDirectory)', home '\(homeDirectory)')"
            )
        }
        return (Self.normalize(joined), nil)
    }

    /// `/a/./b/../c//d/` → `/a/c/d`.
    static func normalize(_ absolute: String) -> String {
        var parts: [Substring] = []
        for part in absolute.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." {
                if !parts.isEmpty { parts.removeLast() }
                continue
            }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }
}
