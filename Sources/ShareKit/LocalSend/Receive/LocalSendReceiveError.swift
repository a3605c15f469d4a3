/// Why `share receive --localsend` cannot answer LocalSend senders.
public struct LocalSendReceiveError: Error, Sendable, CustomStringConvertible {
    /// What happened, and what to do.
    public var description: String
}
