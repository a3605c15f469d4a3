import Foundation

/// How many bytes of received file content all of a receiver's transfers together may hold between
/// their network and disk threads (the queues of their ``FileWriter``s).
///
/// Each writer queue is bounded on its own (``FileWriter/queueBudget``), which keeps one transfer
/// fast; when many transfers arrive faster than the disk takes them, this budget bounds their sum,
/// so sixteen senders at once do not hold sixteen full queues. A writer that holds nothing may
/// always hand over one batch, whatever the others hold, so no transfer starves: the bytes held
/// stay under ``limit`` plus one batch per transfer. A network thread that waits for room stops
/// reading its socket, which slows its sender down (TCP's own back-pressure).
public final class WriterQueueBudget: @unchecked Sendable {
    // @unchecked: every stored property is guarded by `condition`.
    private let condition = NSCondition()
    private var used = 0
    private var peak = 0
    private var waiting = 0
    private var releasesHeld = false

    /// The bytes all writer queues may hold together (one batch more per transfer that holds none).
    public let limit: Int

    /// The default: two transfers' full queues (``FileWriter/queueBudget``); one transfer is never
    /// held back by it, sixteen share it.
    public static let defaultLimit = 16 << 20

    /// Creates a budget of `limit` bytes.
    public init(limit: Int = WriterQueueBudget.defaultLimit) {
        self.limit = limit
    }

    /// The most bytes held at once so far.
    public var highWaterMark: Int { locked { peak } }

    /// The bytes held now.
    public var bytesHeld: Int { locked { used } }

    /// How many network threads wait for room now.
    public var waitingWriters: Int { locked { waiting } }

    /// One writer's part of the budget.
    final class Account: @unchecked Sendable {
        // @unchecked: guarded by the budget's `condition`.
        fileprivate var held = 0
        fileprivate var isClosed = false
    }

    /// A new account for one writer.
    func open() -> Account { Account() }

    /// Takes `cost` bytes for `account`, waiting while the budget is spent (unless the account
    /// holds nothing). Returns false, taking nothing, once the account is closed.
    func take(_ cost: Int, for account: Account) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !account.isClosed && account.held > 0 && used + cost > limit {
            waiting += 1
            condition.wait()
            waiting -= 1
        }
        if account.isClosed { return false }
        account.held += cost
        used += cost
        peak = max(peak, used)
        return true
    }

    /// Gives back `cost` bytes `account` took (its disk thread wrote them).
    func give(_ cost: Int, from account: Account) {
        condition.lock()
        defer { condition.unlock() }
        while releasesHeld { condition.wait() }
        let given = min(cost, account.held)
        account.held -= given
        used -= given
        if waiting > 0 { condition.broadcast() }
    }

    /// Gives back everything `account` holds and ends it: its writer stopped, and a network thread
    /// waiting for room for it returns at once.
    func close(_ account: Account) {
        condition.lock()
        defer { condition.unlock() }
        used -= account.held
        account.held = 0
        account.isClosed = true
        condition.broadcast()
    }

    /// Test-only: while held, disk threads wait before they give bytes back, as if the disk were
    /// slower than every network; ``resumeReleases()`` lets them go on.
    func holdReleases() { locked { releasesHeld = true } }

    /// Test-only: ends ``holdReleases()``.
    func resumeReleases() {
        locked {
            releasesHeld = false
            condition.broadcast()
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }
}
