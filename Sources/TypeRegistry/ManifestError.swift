/// Why a manifest could not be read at all.
///
/// Problems inside a readable manifest are never errors: they become ``ManifestWarning``s.
public enum ManifestError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file could not be read.
    case unreadable(path: String, reason: String)
    /// The file is larger than a manifest may be.
    case tooLarge(byteCount: Int, limit: Int)
    /// The bytes are not a property list (XML, binary or OpenStep).
    case notAPropertyList(reason: String)
    /// The property list's root is not a dictionary.
    case rootIsNotADictionary(found: String)

    /// A message for the user saying what happened and what to do.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            "Cannot read the manifest '\(path)': \(reason). Check the path and its permissions."
        case .tooLarge(let byteCount, let limit):
            "The manifest is \(byteCount) bytes; a manifest may be at most \(limit) bytes. Pass the app's Info.plist, not a data file."
        case .notAPropertyList(let reason):
            "The manifest is not a property list (\(reason)). Pass an Info.plist-style XML or binary property list."
        case .rootIsNotADictionary(let found):
            "The manifest's top level is \(found), not a dictionary. An Info.plist starts with <dict>."
        }
    }
}
