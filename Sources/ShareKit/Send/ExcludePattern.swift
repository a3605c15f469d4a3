#if canImport(Glibc)
import Glibc
#endif

/// One `--exclude PATTERN` of `share send`, with the rules of a line of `.gitignore`.
///
/// Patterns apply to what is found inside the folders being sent, with paths relative to each
/// folder (the folder itself and the paths named on the command line are always sent):
///
/// - `*` matches anything but `/`, `?` one character but `/`, `[a-z]` a set; `\` quotes the next
///   character.
/// - A pattern without a `/` (but perhaps one at its end) matches a name at any depth: `*.o`,
///   `node_modules`.
/// - A pattern with a `/` at its start or in its middle matches the path from the folder's top:
///   `/build`, `docs/*.pdf`. `**` stands for any number of folders: `**/cache`, `src/**/*.tmp`,
///   `logs/**`.
/// - A pattern that ends with `/` matches only folders.
/// - `!pattern` sends again what an earlier pattern left out (the last pattern that matches
///   decides); what lies in a folder that was left out stays out.
///
/// A folder that is left out is not looked into.
public struct ExcludePattern: Sendable, Hashable {
    /// The pattern as the user gave it.
    public let text: String
    let negated: Bool
    let directoryOnly: Bool
    let anchored: Bool
    let segments: [String]

    /// Parses `text`; nil when it matches nothing (empty, `!` or `/` alone).
    public init?(_ text: String) {
        self.text = text
        var body = Substring(text)
        negated = body.hasPrefix("!")
        if negated { body = body.dropFirst() }
        directoryOnly = body.hasSuffix("/") && !body.hasSuffix("\\/")
        while body.hasSuffix("/") { body = body.dropLast() }
        anchored = body.contains("/")
        while body.hasPrefix("/") { body = body.dropFirst() }
        guard !body.isEmpty else { return nil }
        segments = body.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    /// Whether the pattern matches the entry at `components` (relative to the folder's top).
    func matches(_ components: [Substring], isDirectory: Bool) -> Bool {
        if directoryOnly && !isDirectory { return false }
        guard let name = components.last else { return false }
        if !anchored { return Self.glob(segments[0], name) }
        return Self.match(segments[...], components[...])
    }

    private static func match(_ pattern: ArraySlice<String>, _ path: ArraySlice<Substring>) -> Bool {
        guard let first = pattern.first else { return path.isEmpty }
        if first == "**" {
            let rest = pattern.dropFirst()
            // A trailing `**` is everything inside: at least one more name.
            if rest.isEmpty { return !path.isEmpty }
            var remaining = path
            while true {
                if match(rest, remaining) { return true }
                guard !remaining.isEmpty else { return false }
                remaining = remaining.dropFirst()
            }
        }
        guard let name = path.first, glob(first, name) else { return false }
        return match(pattern.dropFirst(), path.dropFirst())
    }

    /// One name against one segment, as fnmatch(3) does (`*`, `?`, `[...]`, `\`).
    private static func glob(_ pattern: String, _ name: Substring) -> Bool {
        fnmatch(pattern, String(name), 0) == 0
    }
}

/// The `--exclude` patterns of one send, in order: the last one that matches decides.
public struct ExcludeRules: Sendable, Hashable {
    /// The patterns, in the order given.
    public var patterns: [ExcludePattern]

    /// Rules from patterns.
    public init(_ patterns: [ExcludePattern] = []) { self.patterns = patterns }

    /// Whether the entry at `components` (relative to the folder's top) is left out.
    public func excludes(_ components: [Substring], isDirectory: Bool) -> Bool {
        var excluded = false
        for pattern in patterns where pattern.negated == excluded {
            if pattern.matches(components, isDirectory: isDirectory) { excluded = !pattern.negated }
        }
        return excluded
    }
}
