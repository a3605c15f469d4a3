public import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The user's settings, stored as `settings.json` in the config folder.
public struct NodeSettings: Codable, Sendable, Equatable {
    /// The device name chosen with `share identity set-name`, if any.
    public var name: String?
    /// Wide-area DNS-SD: where `share receive` publishes beyond the local network, and where
    /// `share peers` looks (see ``WideAreaSettings``).
    public var wideArea: WideAreaSettings?

    /// Creates settings.
    public init(name: String? = nil, wideArea: WideAreaSettings? = nil) {
        self.name = name
        self.wideArea = wideArea
    }

    /// The file's name in the config folder.
    public static let fileName = "settings.json"

    /// Loads the settings; a missing file gives defaults.
    /// - Parameter checkingName: refuse an unusable device name (`share identity set-name`, which
    ///   replaces it, does not).
    /// - Throws: ``ConfigurationError`` when the file exists but cannot be read or parsed.
    public static func load(from directory: String, checkingName: Bool = true) throws(ConfigurationError) -> NodeSettings {
        let path = directory + "/" + fileName
        guard FileManager.default.fileExists(atPath: path) else { return NodeSettings() }
        let settings: NodeSettings
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            settings = try JSONDecoder().decode(NodeSettings.self, from: data)
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
        if checkingName, let name = settings.name, let problem = DeviceName.problem(with: name) {
            throw .unreadable(path: path, reason: "its device name is unusable: \(problem); set another with 'share identity set-name'")
        }
        return settings
    }

    /// Saves atomically (temporary file, fsync, rename).
    public func save(to directory: String) throws(ConfigurationError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(self)
        } catch {
            throw .unwritable(path: directory, reason: "\(error)")
        }
        try AtomicFile.write(data, to: directory + "/" + Self.fileName, mode: 0o644)
    }
}

/// A problem with share's own configuration files.
public enum ConfigurationError: Error, Sendable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case unwritable(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read '\(path)': \(reason); fix or remove the file"
        case .unwritable(let path, let reason): "cannot write '\(path)': \(reason)"
        }
    }
}

/// Writes files so that readers see the old content or the new, never a mix.
public enum AtomicFile {
    /// Writes `data` to `path` through a temporary file in the same folder, fsyncs it, renames it
    /// over `path`, and fsyncs the folder. Creates the folder (mode 0700) if needed.
    public static func write(_ data: Data, to path: String, mode: UInt32) throws(ConfigurationError) {
        let directory = (path as NSString).deletingLastPathComponent
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw .unwritable(path: path, reason: POSIX.errorText())
        }
        let temporary = directory + "/.\((path as NSString).lastPathComponent).\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode_t(mode))
        guard fd >= 0 else { throw .unwritable(path: path, reason: POSIX.errorText()) }
        let problem = data.withUnsafeBytes { POSIX.writeAll(fd, $0) }
        if let problem {
            close(fd)
            unlink(temporary)
            throw .unwritable(path: path, reason: POSIX.errorText(problem))
        }
        _ = fchmod(fd, mode_t(mode))
        guard fsync(fd) == 0 else {
            let reason = POSIX.errorText()
            close(fd)
            unlink(temporary)
            throw .unwritable(path: path, reason: reason)
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let reason = POSIX.errorText()
            unlink(temporary)
            throw .unwritable(path: path, reason: reason)
        }
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            _ = fsync(directoryFD)
            close(directoryFD)
        }
    }
}
