/// How a send tries again when its connection fails on the way (README, "Interrupted
/// transfers"): it reconnects after a growing pause, for at most ``retryFor`` after the first
/// failure, and continues from what the receiver holds.
public struct RetryPolicy: Sendable, Hashable {
    /// How long to keep trying after the first failure.
    public var retryFor: Duration
    /// The first pause; each next one doubles, up to ``maxDelay``.
    public var initialDelay: Duration
    /// The longest pause between attempts.
    public var maxDelay: Duration

    /// The default time a send keeps trying: long enough for a laptop lid closed for a while, a
    /// Wi-Fi roam or a receiver restarted.
    public static let defaultRetryFor: Duration = .seconds(300)

    /// A policy; the pauses default to 1 s doubling up to 15 s.
    public init(retryFor: Duration = RetryPolicy.defaultRetryFor, initialDelay: Duration = .seconds(1), maxDelay: Duration = .seconds(15)) {
        self.retryFor = retryFor
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
    }

    /// The pause before attempt `attempt` (2, 3, ...).
    public func delay(beforeAttempt attempt: Int) -> Duration {
        var delay = initialDelay
        for _ in 2..<max(attempt, 2) {
            delay = min(delay * 2, maxDelay)
        }
        return min(delay, maxDelay)
    }
}

/// A send is trying again (``SendOptions/onReconnect``).
public struct Reconnection: Sendable {
    /// The attempt about to start (2 for the first retry).
    public var attempt: Int
    /// Why the last attempt failed.
    public var reason: String
    /// The pause before it.
    public var delay: Duration
    /// Time left before the send gives up.
    public var remaining: Duration
}

/// The receiver already holds part of the offer (``SendOptions/onResume``).
public struct Resumption: Sendable {
    /// Bytes the receiver says it holds (each file's part is checked against the source before it
    /// is used; a part that does not match is sent again).
    public var heldBytes: UInt64
    /// Bytes in the offer.
    public var totalBytes: UInt64
}
