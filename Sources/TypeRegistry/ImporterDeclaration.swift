/// The `ShareImporter` dictionary of a manifest, as written and not yet validated.
///
/// ```xml
/// <key>ShareImporter</key>
/// <dict>
///     <key>Kind</key>      <string>command</string>   <!-- copy | move | unpack | command -->
///     <key>Folder</key>    <string>~/BeerTracker/Inbox</string>   <!-- copy, move, unpack -->
///     <key>Arguments</key> <array><string>beertracker</string><string>--import</string><string>%f</string></array>
///     <key>Timeout</key>   <integer>30</integer>   <!-- seconds, command only; default 60 -->
/// </dict>
/// ```
/// ``ShareImporter/init(validating:paths:)`` checks it and resolves its paths.
public struct ImporterDeclaration: Hashable, Sendable, Codable {
    /// `Kind`, trimmed.
    public var kind: String?
    /// `Folder`, trimmed.
    public var folder: String?
    /// `Arguments` when it is an array of strings.
    public var arguments: [String]?
    /// `Arguments` when it is a single string: a shell command line, which is refused.
    public var argumentsText: String?
    /// `Timeout` in seconds, when it is a number (or a string holding one).
    public var timeoutSeconds: Double?
    /// `Timeout` as written when it is not a number.
    public var timeoutText: String?

    /// Creates a declaration.
    public init(
        kind: String? = nil, folder: String? = nil, arguments: [String]? = nil, argumentsText: String? = nil,
        timeoutSeconds: Double? = nil, timeoutText: String? = nil
    ) {
        self.kind = kind
        self.folder = folder
        self.arguments = arguments
        self.argumentsText = argumentsText
        self.timeoutSeconds = timeoutSeconds
        self.timeoutText = timeoutText
    }
}
