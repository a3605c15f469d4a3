import Foundation
public import ShareDocuments

/// One key of the settings file (``NodeSettings``): what it means, the values it takes, its
/// default, and how `share config` reads and writes it.
public enum SettingKey: String, CaseIterable, Sendable {
    case name
    case dir
    case port
    case accept
    case everyoneFor = "everyone-for"
    case executeBit = "execute-bit"
    case compression
    case rateLimit = "rate-limit"
    case localsend

    /// One line for `share config list` and the documentation.
    public var summary: String {
        switch self {
        case .name: "The device name others see (as 'share identity set-name')."
        case .dir: "Where 'share receive' stores what no application imports."
        case .port: "The port 'share receive' listens on (0: a free one each time)."
        case .accept: "Whom 'share receive' accepts from: ask, trusted or everyone."
        case .everyoneFor: "How long 'everyone' lasts, then ask (none: no limit)."
        case .executeBit: "strip: nothing received is executable; keep-in-bundles: see below."
        case .compression: "Whether transfers may be compressed (zstd where it pays): on or off."
        case .rateLimit: "Most bytes a second per transfer, e.g. 10M, 500k; none: no limit."
        case .localsend: "Whether 'share receive' also answers LocalSend senders (phones): on or off."
        }
    }

    /// What `share config set` accepts for this key.
    public var accepted: String {
        switch self {
        case .name: "a name of at most 63 bytes"
        case .dir: "a folder (~ and relative paths are made absolute)"
        case .port: "a number from 0 to 65535"
        case .accept: "ask, trusted or everyone"
        case .everyoneFor: "a duration such as 90s, 10m or 2h (at most a week), or none"
        case .executeBit: "strip or keep-in-bundles"
        case .compression, .localsend: "on or off"
        case .rateLimit:
            "a rate of at least \(ByteRate.format(ByteRate.minimum)) such as 500k, 10M or 1.5 MB/s, or none"
        }
    }

    /// Whether this version of share acts on the key. The others are stored and validated, so
    /// a setting chosen now takes effect once the code uses it.
    public var isApplied: Bool {
        switch self {
        case .name, .dir, .port, .accept, .everyoneFor, .executeBit, .rateLimit, .compression, .localsend: true
        }
    }

    /// The key's value in `settings` as `share config get` prints it, or nil when it is not set.
    public func text(in settings: NodeSettings) -> String? {
        switch self {
        case .name: settings.name
        case .dir: settings.receiveFolder
        case .port: settings.port.map { String($0) }
        case .accept: settings.accept?.rawValue
        case .everyoneFor: settings.everyoneFor.map(DurationText.format)
        case .executeBit: settings.executeBit.map(Self.executeBitWord)
        case .compression: settings.compression.map { $0 ? "on" : "off" }
        case .rateLimit: settings.rateLimit.map(ByteRate.format)
        case .localsend: settings.localsend.map { $0 ? "on" : "off" }
        }
    }

    /// The value that applies when the key is not set.
    public func defaultText(paths: SharePaths) -> String {
        switch self {
        case .name: DeviceName.hostName
        case .dir: paths.downloadDirectory
        case .port: String(ReceiverConfiguration.defaultPort)
        case .accept: ReceivePolicy.ask.rawValue
        case .everyoneFor: "none"
        case .executeBit: Self.executeBitWord(.removed)
        case .compression: "on"
        case .rateLimit: "none"
        case .localsend: "off"
        }
    }

    /// Sets the key from what a user typed.
    ///
    /// - Parameters:
    ///   - workingDirectory: where a relative `dir` starts.
    ///   - home: what `~` means.
    /// - Throws: ``SettingError`` saying what the key accepts.
    public func set(
        _ text: String, in settings: inout NodeSettings, workingDirectory: String, home: String
    ) throws(SettingError) {
        let word = text.trimmingCharacters(in: .whitespaces)
        switch self {
        case .name:
            if let problem = DeviceName.problem(with: text) { throw invalid(text, problem) }
            settings.name = text
        case .dir:
            settings.receiveFolder = try Self.folder(text, workingDirectory: workingDirectory, home: home, key: self)
        case .port:
            guard let port = UInt16(word) else { throw invalid(text) }
            settings.port = port
        case .accept:
            guard let policy = ReceivePolicy(rawValue: word.lowercased() == "all" ? "everyone" : word.lowercased())
            else {
                throw invalid(text)
            }
            settings.accept = policy
        case .everyoneFor:
            if ["none", "off"].contains(word.lowercased()) {
                settings.everyoneFor = nil
                return
            }
            guard let duration = DurationText.parse(word) else { throw invalid(text) }
            settings.everyoneFor = duration
        case .executeBit:
            guard let bits = ExecutableBits.allCases.first(where: { Self.executeBitWord($0) == word.lowercased() })
            else {
                throw invalid(text)
            }
            settings.executeBit = bits
        case .compression, .localsend:
            let flag: Bool
            switch word.lowercased() {
            case "on", "yes", "true", "1": flag = true
            case "off", "no", "false", "0": flag = false
            default: throw invalid(text)
            }
            if self == .compression { settings.compression = flag } else { settings.localsend = flag }
        case .rateLimit:
            guard let rate = ByteRate.parse(word), rate == 0 || rate >= ByteRate.minimum else { throw invalid(text) }
            settings.rateLimit = rate
        }
    }

    /// Removes the key, so its default applies.
    public func unset(in settings: inout NodeSettings) {
        switch self {
        case .name: settings.name = nil
        case .dir: settings.receiveFolder = nil
        case .port: settings.port = nil
        case .accept: settings.accept = nil
        case .everyoneFor: settings.everyoneFor = nil
        case .executeBit: settings.executeBit = nil
        case .compression: settings.compression = nil
        case .rateLimit: settings.rateLimit = nil
        case .localsend: settings.localsend = nil
        }
    }

    /// The key's JSON value in the file (nil when not set).
    func encoded(_ settings: NodeSettings) -> Any? {
        switch self {
        case .port: settings.port.map { Int($0) }
        case .everyoneFor: settings.everyoneFor.map { Int($0.components.seconds) }
        case .compression: settings.compression
        case .localsend: settings.localsend
        case .rateLimit: settings.rateLimit.map { Int(clamping: $0) }
        default: text(in: settings)
        }
    }

    /// Reads the key's JSON value from the file, with the checks of ``set(_:in:workingDirectory:home:)``.
    func decode(_ value: Any, into settings: inout NodeSettings) throws(SettingError) {
        switch self {
        case .port, .everyoneFor, .rateLimit:
            guard let number = value as? Int, !Self.isBoolean(value) else {
                throw SettingError("expected a number, found \(NodeSettings.jsonText(value))")
            }
            try set(String(number), in: &settings, workingDirectory: "/", home: "/")
        case .compression, .localsend:
            guard let flag = value as? Bool, Self.isBoolean(value) else {
                throw SettingError("expected true or false, found \(NodeSettings.jsonText(value))")
            }
            if self == .compression { settings.compression = flag } else { settings.localsend = flag }
        default:
            guard let text = value as? String else {
                throw SettingError("expected a string, found \(NodeSettings.jsonText(value))")
            }
            if self == .dir && !text.hasPrefix("/") { throw SettingError("expected an absolute path, found '\(text)'") }
            try set(text, in: &settings, workingDirectory: "/", home: "/")
        }
    }

    /// The word for `bits` in the settings: `strip` or `keep-in-bundles`.
    public static func executeBitWord(_ bits: ExecutableBits) -> String {
        switch bits {
        case .removed: "strip"
        case .keptInBundles: "keep-in-bundles"
        }
    }

    /// Whether a value from JSONSerialization was `true` or `false` (numbers and booleans both
    /// bridge to Int and Bool).
    private static func isBoolean(_ value: Any) -> Bool {
        type(of: value as AnyObject) == type(of: NSNumber(value: true) as AnyObject)
    }

    private func invalid(_ text: String, _ problem: String? = nil) -> SettingError {
        SettingError(
            "'\(text)' is not a valid value for '\(rawValue)'" + (problem.map { " (\($0))" } ?? "")
                + "; expected \(accepted)")
    }

    /// An absolute, normalized folder path; refused when something other than a folder is there.
    private static func folder(
        _ text: String, workingDirectory: String, home: String, key: SettingKey
    ) throws(SettingError) -> String {
        guard !text.isEmpty, !text.contains("\0") else { throw key.invalid(text) }
        var path = text
        if path == "~" || path.hasPrefix("~/") { path = home + path.dropFirst() }
        if !path.hasPrefix("/") { path = workingDirectory + "/" + path }
        path = URL(fileURLWithPath: path).standardized.path
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue {
            throw key.invalid(text, "'\(path)' exists and is not a folder")
        }
        return path
    }
}

/// A value a setting does not accept, or a settings file that holds one.
public struct SettingError: Error, Sendable, CustomStringConvertible {
    /// What is wrong and what is expected.
    public var description: String

    init(_ description: String) { self.description = description }
}
