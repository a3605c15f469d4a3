/// A filename pattern of a shared-mime-info type (`<glob pattern="*.tar.gz" weight="50"/>`).
public struct MimeGlob: Hashable, Sendable {
    /// The fnmatch-style pattern: `*`, `?` and `[…]`; a pattern without them is a literal name.
    public let pattern: String
    /// 0…100, default 50; higher weights win.
    public let weight: Int
    /// Whether the pattern matches only with the same case (`*.C` is C++, `*.c` is C).
    public let caseSensitive: Bool

    /// Creates a glob.
    public init(pattern: String, weight: Int = 50, caseSensitive: Bool = false) {
        self.pattern = pattern
        self.weight = weight
        self.caseSensitive = caseSensitive
    }
}
