/// Whom a receiver accepts documents from.
public enum ReceivePolicy: String, Sendable, CaseIterable {
    /// Show each offer (with the verification code on first contact) and wait for y/N.
    case ask
    /// Accept silently from verified peers (and peers a trusted team CA vouches for); refuse
    /// everyone else without asking.
    case trusted
    /// Accept from anyone (for a while, with `--everyone-for`).
    case everyone
}
