/// The current rate of a transfer, as a progress line shows it: bytes over the last few seconds
/// (not the average since the start, which hides a slowdown), and whether nothing moved for a while.
struct RateMeter: Sendable {
    /// How far back the current rate looks.
    static let window: Duration = .seconds(3)
    /// How long nothing must move before the line says "stalled".
    static let stallAfter: Duration = .seconds(3)

    private var samples: [(at: ContinuousClock.Instant, bytes: UInt64)] = []
    private var lastChange: ContinuousClock.Instant?

    /// Records that `bytes` were done at `now`.
    mutating func add(_ bytes: UInt64, at now: ContinuousClock.Instant) {
        if samples.last?.bytes != bytes { lastChange = now }
        samples.append((now, bytes))
        // Keep one sample older than the window, so the rate always spans it.
        while samples.count > 2, samples[1].at < now - Self.window { samples.removeFirst() }
    }

    /// Bytes per second over the last ``window`` (nil until half a second of samples exists).
    func rate(at now: ContinuousClock.Instant) -> Double? {
        guard let first = samples.first, let last = samples.last else { return nil }
        if isStalled(at: now) { return 0 }
        let span = now - first.at
        guard span >= .milliseconds(500) else { return nil }
        let seconds = Double(span.components.seconds) + Double(span.components.attoseconds) / 1e18
        return Double(last.bytes &- first.bytes) / seconds
    }

    /// Whether nothing moved for ``stallAfter``.
    func isStalled(at now: ContinuousClock.Instant) -> Bool {
        guard let lastChange else { return false }
        return now - lastChange >= Self.stallAfter
    }
}
