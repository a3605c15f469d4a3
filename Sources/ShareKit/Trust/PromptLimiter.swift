import Foundation
import Synchronization

/// Bounds how often one peer can make the receiver ask its user (AirDoS, CVE-2019-8796: an
/// unbounded stream of prompts locks the user out). Counted per fingerprint and per address, in a
/// sliding window.
public final class PromptLimiter: Sendable {
    /// Prompts allowed per key in one window.
    public let limit: Int
    /// The window.
    public let window: Duration
    private let history = Mutex<[String: [ContinuousClock.Instant]]>([:])

    /// Creates a limiter allowing `limit` prompts per `window` for each peer.
    public init(limit: Int = 3, window: Duration = .seconds(60)) {
        self.limit = limit
        self.window = window
    }

    /// Records a prompt for every key if none of them is over the limit; returns false (and
    /// records nothing) when one is.
    public func allow(_ keys: [String], now: ContinuousClock.Instant = .now) -> Bool {
        history.withLock { history in
            for key in keys {
                let recent = (history[key] ?? []).filter { now - $0 < window }
                history[key] = recent
                if recent.count >= limit { return false }
            }
            for key in keys { history[key, default: []].append(now) }
            if history.count > 4096 { history = history.filter { !$0.value.isEmpty } }
            return true
        }
    }
}
