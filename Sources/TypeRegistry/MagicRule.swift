/// A shared-mime-info `<magic>` element: alternative matches and the rule's priority.
public struct MagicRule: Hashable, Sendable {
    /// 0…100, default 50; higher priorities win over lower ones.
    public let priority: Int
    /// The top-level matches, any one of which makes the rule hold.
    public let matches: [MagicMatch]

    /// Creates a rule.
    public init(priority: Int = 50, matches: [MagicMatch]) {
        self.priority = priority
        self.matches = matches
    }

    /// Whether the rule holds for the first bytes of a file.
    public func matches(_ bytes: [UInt8]) -> Bool {
        matches.contains { $0.matches(bytes) }
    }
}
