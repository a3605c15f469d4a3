/// Keeps `share receive` readable under a flood of refused connections: at most one report per
/// source address per ``interval`` and ``burst`` reports in all per ``interval``; the next report
/// says how many were left out meanwhile.
struct RefusalThrottle {
    /// The window the limits apply to.
    static let interval: Duration = .seconds(10)
    /// Reports per window, from all addresses.
    static let burst = 5

    private var lastByAddress: [String: ContinuousClock.Instant] = [:]
    private var windowStart: ContinuousClock.Instant?
    private var inWindow = 0
    private var suppressed = 0

    /// Whether to report a refused connection from `host` now; if so, how many were left out
    /// since the last one reported.
    mutating func admit(_ host: String, at now: ContinuousClock.Instant = .now) -> Int? {
        if let start = windowStart, now - start < Self.interval {
            if inWindow >= Self.burst {
                suppressed += 1
                return nil
            }
        } else {
            windowStart = now
            inWindow = 0
            lastByAddress = lastByAddress.filter { now - $0.value < Self.interval }
        }
        if let last = lastByAddress[host], now - last < Self.interval {
            suppressed += 1
            return nil
        }
        lastByAddress[host] = now
        inWindow += 1
        defer { suppressed = 0 }
        return suppressed
    }
}
