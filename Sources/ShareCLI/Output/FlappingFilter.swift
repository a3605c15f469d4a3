/// Coalesces what `share peers --watch` prints about each peer: a name whose state changes again
/// within ``quiet`` is printed once it settles (at the latest after ``maxDelay``), a change that
/// ends where it started is not printed at all, and a name that keeps appearing and disappearing is
/// reported once as flapping (at most every ``flappingNoteInterval``) instead of line after line.
struct FlappingFilter {
    /// What to print for a name.
    enum Output: Equatable {
        /// Its latest state (the line to print), or nil: it is gone.
        case state(String?)
        /// It keeps changing.
        case flapping
    }

    /// A change settles after this long without another.
    static let quiet: Duration = .milliseconds(500)
    /// A change is printed after this long even if the name keeps changing.
    static let maxDelay: Duration = .seconds(2)
    /// Changes within ``maxDelay`` that make a name flapping.
    static let flappingChanges = 4
    /// How often a flapping name is reported.
    static let flappingNoteInterval: Duration = .seconds(30)

    private struct Pending {
        var state: String?
        var first: ContinuousClock.Instant
        var last: ContinuousClock.Instant
        var changes: Int
    }

    private var pending: [String: Pending] = [:]
    /// What was printed last for each name (absent: nothing, or that it is gone).
    private var printed: [String: String] = [:]
    private var flappingNoted: [String: ContinuousClock.Instant] = [:]

    /// Records that `name` is now in `state` (the line to print for it), or gone (nil).
    mutating func record(_ name: String, state: String?, at now: ContinuousClock.Instant = .now) {
        if var entry = pending[name] {
            entry.state = state
            entry.last = now
            entry.changes += 1
            pending[name] = entry
        } else {
            pending[name] = Pending(state: state, first: now, last: now, changes: 1)
        }
    }

    /// What to print now, by name, in name order.
    mutating func due(at now: ContinuousClock.Instant = .now) -> [(name: String, output: Output)] {
        var result: [(String, Output)] = []
        for name in pending.keys.sorted() {
            guard let entry = pending[name] else { continue }
            let settled = now - entry.last >= Self.quiet
            let overdue = now - entry.first >= Self.maxDelay
            guard settled || overdue else { continue }
            pending[name] = nil
            if entry.changes >= Self.flappingChanges && !settled {
                if let noted = flappingNoted[name], now - noted < Self.flappingNoteInterval { continue }
                flappingNoted[name] = now
                result.append((name, .flapping))
                continue
            }
            if printed[name] == entry.state { continue }
            printed[name] = entry.state
            result.append((name, .state(entry.state)))
        }
        return result
    }

    /// The next time ``due(at:)`` may have something, if anything is pending.
    var nextDue: ContinuousClock.Instant? {
        pending.values.map { min($0.last + Self.quiet, $0.first + Self.maxDelay) }.min()
    }
}
