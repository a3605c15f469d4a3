import Foundation
import ShareSystem

/// Where share keeps its files, following the XDG base directory specification.
public struct SharePaths: Sendable {
    /// Identity, settings and (later) the trust store: `$SHARE_CONFIG_DIR`, else
    /// `$XDG_CONFIG_HOME/share`, else `~/.config/share`.
    public var configDirectory: String
    /// Data such as the inbox: `$XDG_DATA_HOME/share`, else `~/.local/share/share`.
    public var dataDirectory: String
    /// The default receive folder: the XDG download folder (`$XDG_DOWNLOAD_DIR`, else the
    /// `XDG_DOWNLOAD_DIR` of `user-dirs.dirs`, else `~/Downloads`).
    public var downloadDirectory: String
    /// The user's home folder.
    public var home: String
    /// State that is neither configuration nor data (notes already given, history):
    /// `$XDG_STATE_HOME/share`, else `~/.local/state/share`.
    public var stateDirectory: String

    /// Received documents waiting for (or having failed) their import: `<data>/Inbox`.
    public var inboxDirectory: String { dataDirectory + "/Inbox" }
    /// Registered applications, one JSON file each: `<data>/applications`.
    public var applicationsDirectory: String { dataDirectory + "/applications" }

    /// Computes the paths from environment variables.
    public init(environment: [String: String]) {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        self.home = home
        let configHome = Self.absolute(environment["XDG_CONFIG_HOME"]) ?? home + "/.config"
        let dataHome = Self.absolute(environment["XDG_DATA_HOME"]) ?? home + "/.local/share"
        configDirectory = Self.absolute(environment["SHARE_CONFIG_DIR"]) ?? configHome + "/share"
        dataDirectory = dataHome + "/share"
        stateDirectory = (Self.absolute(environment["XDG_STATE_HOME"]) ?? home + "/.local/state") + "/share"
        downloadDirectory =
            Self.absolute(environment["XDG_DOWNLOAD_DIR"])
            ?? Self.userDirsDownload(configHome: configHome, home: home)
            ?? home + "/Downloads"
    }

    /// Whether ``home`` is not an existing folder although one of share's folders lies inside it.
    /// share must then create nothing: making those folders would make a home folder of its own
    /// (`HOME=/nonexistent` would get `.config`, `.local` and `Downloads`).
    public func lacksHome() -> Bool {
        let inside = [configDirectory, dataDirectory, stateDirectory, downloadDirectory].contains { $0.hasPrefix(home + "/") }
        guard inside else { return false }
        return (try? FileStatus(path: home))?.isFolder != true
    }

    /// `value` when it is an absolute path (the XDG spec ignores relative ones).
    private static func absolute(_ value: String?) -> String? {
        guard let value, value.hasPrefix("/") else { return nil }
        return value
    }

    /// Reads `XDG_DOWNLOAD_DIR="$HOME/..."` from `user-dirs.dirs`.
    private static func userDirsDownload(configHome: String, home: String) -> String? {
        guard let bytes = POSIX.readFile(configHome + "/user-dirs.dirs", limit: 1 << 20, followingLinks: true) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix("XDG_DOWNLOAD_DIR=") {
            var value = line.dropFirst("XDG_DOWNLOAD_DIR=".count).trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            value = value.replacingOccurrences(of: "$HOME", with: home)
            while value.count > 1 && value.hasSuffix("/") { value.removeLast() }
            // xdg-user-dirs writes "$HOME/" for a folder the user turned off.
            if value.hasPrefix("/") && value != home { return value }
        }
        return nil
    }
}
