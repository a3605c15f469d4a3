import Foundation
import Synchronization

/// Bounds how often one peer can make the receiver ask its user (AirDoS, CVE-2019-8796: an
/// unbounded stream of prompts locks the user out). Counted per fingerprint and per address, in a
/// sliding window.
///
/// The limit is against strangers: a sender this machine verified (or a team CA vouches for) has
/// an allowance of its own, ``verifiedLimit`` offers per window counted on its key only, so ordinary
/// use (several sends in a minute) is never turned away, and it does not use up the allowance of
/// the unverified senders at its address.
public final class PromptLimiter: Sendable {
    /// Prompts allowed per key in one window, for a sender not verified here.
    public let limit: Int
    /// Prompts allowed in one window for a verified sender (on its key).
    public let verifiedLimit: Int
    /// The window.
    public let window: Duration
    private let history = Mutex<[String: [ContinuousClock.Instant]]>([:])

    /// Why a prompt was not allowed: which limit was reached and when one more prompt is allowed.
    public struct Refusal: Sendable, Equatable, CustomStringConvertible {
        /// The prompts the limit allows in one window.
        public let limit: Int
        /// The window.
        public let window: Duration
        /// Whether it is the verified senders' allowance.
        public let verified: Bool
        /// Whether it was the sender's address, shared by every unverified key there, rather than its key.
        public let byAddress: Bool
        /// How long until the oldest prompt counted leaves the window.
        public let liftsIn: Duration

        /// What the sender is told, e.g. "too many offers from this sender: at most 3 a minute from a
        /// sender not verified here; try again in 42 s".
        public var description: String {
            let rate = window == .seconds(60) ? "\(limit) a minute" : "\(limit) in \(window.components.seconds) s"
            let whom =
                verified
                ? "from a verified sender"
                : byAddress ? "from one address for senders not verified here" : "from a sender not verified here"
            let seconds = max(1, Int((liftsIn + .milliseconds(999)).components.seconds))
            return "too many offers from this sender: at most \(rate) \(whom); try again in \(seconds) s"
        }
    }

    /// Creates a limiter allowing `limit` prompts per `window` for each unverified peer and address,
    /// and `verifiedLimit` for each verified one.
    public init(limit: Int = 3, verifiedLimit: Int = 30, window: Duration = .seconds(60)) {
        self.limit = limit
        self.verifiedLimit = verifiedLimit
        self.window = window
    }

    /// Records a prompt for the sender with key `fingerprint` at `address`, unless a limit is
    /// reached: then nothing is recorded and the refusal says which limit and when it lifts. A
    /// `verified` sender is counted on its key only, against ``verifiedLimit``.
    public func admit(fingerprint: String, address: String, verified: Bool, now: ContinuousClock.Instant = .now)
        -> Refusal?
    {
        let keys = verified ? [("verified:" + fingerprint, verifiedLimit)] : [("fp:" + fingerprint, limit), ("ip:" + address, limit)]
        guard let (key, reached, liftsIn) = record(keys, now: now) else { return nil }
        return Refusal(limit: reached, window: window, verified: verified, byAddress: key.hasPrefix("ip:"), liftsIn: liftsIn)
    }

    /// Records `now` for every key unless one has its limit of instants in the window: then the
    /// key, its limit and how long until its oldest instant leaves the window.
    private func record(_ keys: [(key: String, limit: Int)], now: ContinuousClock.Instant)
        -> (key: String, limit: Int, liftsIn: Duration)?
    {
        history.withLock { history in
            for (key, limit) in keys {
                let recent = (history[key] ?? []).filter { now - $0 < window }
                history[key] = recent
                if recent.count >= limit, let oldest = recent.min() { return (key, limit, oldest + window - now) }
            }
            for (key, _) in keys { history[key, default: []].append(now) }
            if history.count > 4096 { history = history.filter { !$0.value.isEmpty } }
            return nil
        }
    }
}
