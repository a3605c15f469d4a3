/// VERIFY: the sender's user's answer to "does the receiver show the same code?" (docs/PROTOCOL.md §6).
public enum VerifyResult: UInt8, Sendable, Hashable {
    /// The sender's user confirmed the codes match.
    case confirmed = 1
    /// The sender's user said the codes differ: the transfer is cancelled.
    case rejected = 2
}
