public import Foundation
public import ShareDocuments

import ShareSystem

#if canImport(Glibc)
import Glibc
#endif

/// The user's settings, stored as `settings.json` in the config folder and changed with
/// `share config set` (``SettingKey`` lists the keys, their values and their defaults).
///
/// Every value is optional: an unset key takes its default, so a default can improve without
/// rewriting anyone's file. The file is a JSON object whose keys are the ``SettingKey`` names:
///
/// ```json
/// {"name": "desk", "dir": "/home/ada/Inbox", "port": 47321, "accept": "everyone", "everyone-for": 600,
///  "execute-bit": "keep-in-bundles", "compression": true, "rate-limit": 10000000}
/// ```
///
/// Loading validates every value as `share config set` does; keys it does not know (written by a
/// newer version, or mistyped) are kept as they are and listed in ``unknownKeys``. `wideArea` is an
/// object of its own (``WideAreaSettings``, docs/WIDE-AREA.md), edited by hand.
public struct NodeSettings: Sendable, Equatable {
    /// The device name others see (`share identity set-name`).
    public var name: String?
    /// The receive folder, an absolute path.
    public var receiveFolder: String?
    /// The port `share receive` listens on (0: a free one each time).
    public var port: UInt16?
    /// Whom `share receive` accepts from.
    public var accept: ReceivePolicy?
    /// How long `everyone` lasts before the receiver goes back to `ask`.
    public var everyoneFor: Duration?
    /// Whether received files may keep execute bits (as `share receive --keep-executables`).
    public var executeBit: ExecutableBits?
    /// Whether transfers may be compressed (docs/PROTOCOL.md §8): `share send` compresses unless it
    /// is off or `--no-compress` is given, and `share receive` offers to decode zstd unless it is off.
    public var compression: Bool?
    /// Whether `share receive` also answers LocalSend senders (`--localsend`; default off).
    public var localsend: Bool?
    /// The most bytes per second a transfer may use, 0 for no limit (`--limit-rate` overrides it).
    public var rateLimit: UInt64?
    /// Wide-area DNS-SD: where `share receive` publishes beyond the local network, and where
    /// `share peers` looks (see ``WideAreaSettings``).
    public var wideArea: WideAreaSettings?
    /// Keys of the file this version does not know, with their JSON text; written back unchanged.
    public private(set) var unknown: [String: String] = [:]

    /// Keys of the file this version does not know.
    public var unknownKeys: [String] { unknown.keys.sorted() }

    /// Creates settings.
    public init(name: String? = nil, wideArea: WideAreaSettings? = nil) {
        self.name = name
        self.wideArea = wideArea
    }

    /// The key of ``wideArea`` in the file.
    static let wideAreaKey = "wideArea"

    /// The file's name in the config folder.
    public static let fileName = "settings.json"

    /// Loads the settings; a missing file gives defaults.
    /// - Parameter checkingName: refuse an unusable device name (`share identity set-name`, which
    ///   replaces it, does not).
    /// - Throws: ``ConfigurationError`` when the file exists but cannot be read, is not a JSON
    ///   object, or holds a value `share config set` would refuse (the message names the key).
    public static func load(from directory: String, checkingName: Bool = true) throws(ConfigurationError) -> NodeSettings {
        let path = directory + "/" + fileName
        guard FileManager.default.fileExists(atPath: path) else { return NodeSettings() }
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
        guard let object = parsed as? [String: Any] else {
            throw .unreadable(path: path, reason: "it is not a JSON object")
        }
        var settings = NodeSettings()
        for (key, value) in object {
            if key == wideAreaKey {
                do {
                    let data = try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])
                    settings.wideArea = try JSONDecoder().decode(WideAreaSettings.self, from: data)
                } catch {
                    throw .unreadable(path: path, reason: "'\(key)': \(error)")
                }
                continue
            }
            guard let setting = SettingKey(rawValue: key) else {
                settings.unknown[key] = Self.jsonText(value)
                continue
            }
            if value is NSNull { continue }
            if setting == .name, let name = value as? String {
                if checkingName, let problem = DeviceName.problem(with: name) {
                    throw .unreadable(
                        path: path, reason: "its device name is unusable: \(problem); set another with 'share identity set-name'")
                }
                // The name is about to be replaced (`share identity set-name`): taken as it is.
                if !checkingName {
                    settings.name = name
                    continue
                }
            }
            do {
                try setting.decode(value, into: &settings)
            } catch {
                throw .unreadable(path: path, reason: "'\(key)': \(error.description) (change it with 'share config set \(key) VALUE')")
            }
        }
        return settings
    }

    /// Saves atomically (temporary file, fsync, rename).
    public func save(to directory: String) throws(ConfigurationError) {
        var object: [String: Any] = [:]
        for (key, text) in unknown {
            object[key] = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
        }
        for key in SettingKey.allCases {
            if let value = key.encoded(self) { object[key.rawValue] = value }
        }
        if let wideArea, let data = try? JSONEncoder().encode(wideArea) {
            object[Self.wideAreaKey] = try? JSONSerialization.jsonObject(with: data)
        }
        let data: Data
        do {
            data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        } catch {
            throw .unwritable(path: directory + "/" + Self.fileName, reason: "\(error)")
        }
        try AtomicFile.write(data + Data("\n".utf8), to: directory + "/" + Self.fileName, mode: 0o644)
    }

    /// Loads, changes and saves the settings while holding their lock (two `share config set` at
    /// once both take effect); returns what `change` returned.
    @discardableResult
    public static func update<T>(
        in directory: String, checkingName: Bool = true, _ change: (inout NodeSettings) throws(SettingError) -> T
    ) throws(SettingsUpdateError) -> T {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw .configuration(.unwritable(path: directory, reason: POSIX.errorText()))
        }
        let lockPath = directory + "/.settings.lock"
        let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw .configuration(.unwritable(path: lockPath, reason: POSIX.errorText())) }
        defer { close(lock) }
        _ = flock(lock, LOCK_EX)
        var settings: NodeSettings
        do {
            settings = try load(from: directory, checkingName: checkingName)
        } catch {
            throw .configuration(error)
        }
        let before = settings
        let result: T
        do {
            result = try change(&settings)
        } catch {
            throw .invalid(error)
        }
        if settings != before {
            do {
                try settings.save(to: directory)
            } catch {
                throw .configuration(error)
            }
        }
        return result
    }

    static func jsonText(_ value: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys]) else {
            return "null"
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Why ``NodeSettings/update(in:_:)`` changed nothing.
public enum SettingsUpdateError: Error, Sendable, CustomStringConvertible {
    /// The file could not be read or written.
    case configuration(ConfigurationError)
    /// The change was refused: a value `share config set` does not accept.
    case invalid(SettingError)

    public var description: String {
        switch self {
        case .configuration(let error): error.description
        case .invalid(let error): error.description
        }
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
