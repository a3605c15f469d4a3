/// The PIN a LocalSend receiver asks for, and the lockout of an address that guesses: three wrong
/// PINs within ``window`` lock that address out for ``lockout`` (HTTP 429), as independent
/// implementations do. Time is given by the caller; the table of addresses is bounded.
public struct LocalSendPinGate: Sendable {
    /// What a request's PIN meets.
    public enum Verdict: Sendable, Equatable {
        /// No PIN is asked for, or it is right.
        case open
        /// Missing or wrong (HTTP 401).
        case wrong
        /// The address guessed too often; it may try again at the instant given (HTTP 429).
        case locked(until: ContinuousClock.Instant)
    }

    /// Wrong PINs from one address that lock it out.
    public static let attempts = 3
    /// How close together those must come.
    public static let window: Duration = .seconds(60)
    /// How long the address is then locked out.
    public static let lockout: Duration = .seconds(60)
    /// Addresses remembered at once (the oldest is forgotten first).
    public static let addresses = 1024

    private let pin: String?
    private var wrong: [String: [ContinuousClock.Instant]] = [:]
    private var locked: [String: ContinuousClock.Instant] = [:]

    /// A gate for `pin` (nil: every request is open).
    public init(pin: String?) {
        self.pin = pin.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Judges the PIN `given` by a request from `address` at `now`.
    public mutating func check(_ given: String?, from address: String, now: ContinuousClock.Instant) -> Verdict {
        guard let pin else { return .open }
        if let until = locked[address] {
            if now < until { return .locked(until: until) }
            locked[address] = nil
        }
        if let given, Self.same(given, pin) {
            wrong[address] = nil
            return .open
        }
        var recent = (wrong[address] ?? []).filter { now - $0 < Self.window }
        recent.append(now)
        if recent.count >= Self.attempts {
            wrong[address] = nil
            locked[address] = now + Self.lockout
            forgetOldest(now: now)
            return .locked(until: now + Self.lockout)
        }
        wrong[address] = recent
        forgetOldest(now: now)
        return .wrong
    }

    /// Keeps the tables within ``addresses``: expired entries go first, then the oldest.
    private mutating func forgetOldest(now: ContinuousClock.Instant) {
        locked = locked.filter { $0.value > now }
        wrong = wrong.filter { entry in entry.value.contains { now - $0 < Self.window } }
        while wrong.count + locked.count > Self.addresses {
            if let oldest = wrong.min(by: { ($0.value.last ?? now) < ($1.value.last ?? now) })?.key {
                wrong[oldest] = nil
            } else if let oldest = locked.min(by: { $0.value < $1.value })?.key {
                locked[oldest] = nil
            }
        }
    }

    /// Compares without stopping at the first differing character.
    private static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for index in 0..<min(x.count, y.count) { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}
