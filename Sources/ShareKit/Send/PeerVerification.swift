/// How the sender knows the receiver it sent to.
public enum PeerVerification: Sendable, Equatable {
    /// The receiver was verified before (its key is pinned).
    case verified
    /// Both users compared the verification code during this send; the receiver is now remembered.
    case confirmedNow
    /// A team CA the user added vouches for the receiver (``SendReport/peerTrustedBy``).
    case teamCA
    /// Nobody compared codes: the receiver is not verified.
    case unverified(UnverifiedReason)

    /// Why a send stayed unverified.
    public enum UnverifiedReason: String, Sendable, Equatable {
        /// No terminal here to compare a code on.
        case senderUnattended
        /// The receiver decides without asking a person (its policy is `everyone` or `trusted`, or it
        /// has no terminal), so it showed no code.
        case receiverUnattended
    }

    /// `verified`, `confirmed`, `team-ca`, `unverified`.
    public var label: String {
        switch self {
        case .verified: "verified"
        case .confirmedNow: "confirmed"
        case .teamCA: "team-ca"
        case .unverified: "unverified"
        }
    }
}
