import ShareLocalSend

/// How `share receive --localsend` answers LocalSend senders.
public struct LocalSendReceiveOptions: Sendable {
    /// The TCP port of its HTTPS server (LocalSend's own by default; 0 picks a free one).
    public var port: UInt16 = LocalSendDevice.defaultPort
    /// The PIN senders must give (nil: none); three wrong ones from an address lock it out for a while.
    public var pin: String?
    /// How long an accepted session may stand without a byte before it is released (its files go).
    public var stallLimit: Duration = LocalSendSessionState.defaultStallLimit
    /// Whether it announces itself on LocalSend's multicast group and answers others' announcements.
    public var announces = true

    /// The defaults.
    public init() {}
}
