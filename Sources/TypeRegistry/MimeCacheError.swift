/// Why a `mime.cache` file cannot be used (the package XML is read instead).
public enum MimeCacheError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file is not a cache of a version this reader knows (1.1 or 1.2).
    case unsupportedVersion(String, major: Int, minor: Int)
    /// The file is truncated or its offsets point nowhere.
    case damaged(String, String)

    /// A sentence naming the file.
    public var description: String {
        switch self {
        case .unsupportedVersion(let source, let major, let minor):
            "\(source): a mime.cache of version \(major).\(minor), which share does not read"
        case .damaged(let source, let problem): "\(source): the mime.cache is damaged (\(problem))"
        }
    }
}
