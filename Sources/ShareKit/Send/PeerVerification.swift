/// How the sender knows the receiver it sent to.
public enum PeerVerification: Sendable, Equatable {
    /// The receiver was verified before (its key is pinned).
    case verified
    /// The user compared the verification code during this send; the receiver is now remembered.
    case confirmedNow
    /// A team CA the user added vouches for the receiver (``SendReport/peerTrustedBy``).
    case teamCA
    /// Nobody compared codes (no terminal to ask on): the receiver is not verified.
    case unverified

    /// `verified`, `confirmed`, `unverified`.
    public var label: String {
        switch self {
        case .verified: "verified"
        case .confirmedNow: "confirmed"
        case .teamCA: "team-ca"
        case .unverified: "unverified"
        }
    }
}
