/// Who takes part on a side of the connection (HELLO `flags`, docs/PROTOCOL.md §6).
public struct HelloFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// A person on this side takes part: the receiver asks its user about the offer; the sender's
    /// user is at a terminal to compare a code.
    public static let attended = HelloFlags(rawValue: 1 << 0)
    /// Sender: its user has not verified the receiver and will compare the code if it is shown.
    /// Receiver: it will show the verification code to its user with the offer.
    public static let compare = HelloFlags(rawValue: 1 << 1)
    /// Receiver only: it has already decided (its DECISION follows at once); the sender must not
    /// send its offer.
    public static let decided = HelloFlags(rawValue: 1 << 2)

    /// Every flag this version defines; others must be 0.
    public static let all: HelloFlags = [.attended, .compare, .decided]
}
