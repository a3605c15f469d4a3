public import Foundation

/// Paths as shown to people: the home folder abbreviated to `~`.
public enum DisplayPath {
    /// `path` with a leading home folder replaced by `~`.
    public static func abbreviate(_ path: String, home: String? = ProcessInfo.processInfo.environment["HOME"]) -> String {
        guard let home, !home.isEmpty, home != "/" else { return path }
        if path == home { return "~" }
        if path.hasPrefix(home + "/") { return "~" + path.dropFirst(home.count) }
        return path
    }
}
