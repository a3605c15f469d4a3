public import ShareTLS

/// A receiver that answered the sender's HELLO: what the connection proved about it, known even
/// when the send does not complete afterwards (declined, failed, cancelled).
public struct GreetedReceiver: Sendable, Equatable {
    /// The name it gave itself (escape before printing: it comes from the peer).
    public var name: String
    /// The key its TLS certificate proved.
    public var fingerprint: Fingerprint
    /// The address the connection reached (`HOST:PORT`).
    public var address: String
    /// The name this machine verified that key under, if it did.
    public var verifiedAs: String?

    /// Creates the record of a greeting.
    public init(name: String, fingerprint: Fingerprint, address: String, verifiedAs: String?) {
        self.name = name
        self.fingerprint = fingerprint
        self.address = address
        self.verifiedAs = verifiedAs
    }
}
