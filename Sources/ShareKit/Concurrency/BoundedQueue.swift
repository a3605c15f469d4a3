import Foundation

/// A blocking first-in first-out queue between two threads, bounded by a total cost (bytes).
///
/// `push` blocks while the queue is over its budget (unless it is empty, so one oversized element
/// still passes): that back-pressure is what keeps a fast network from filling memory when the
/// disk is slow, and a fast disk from reading a whole file ahead of the network. A side is woken
/// only when it is actually waiting, so a steady stream costs no futex calls.
final class BoundedQueue<Element: Sendable>: @unchecked Sendable {
    // @unchecked: every stored property is guarded by `condition`.
    private let condition = NSCondition()
    /// Queued elements from `head` on; taken slots are cleared at once, so a consumed buffer is
    /// freed when its consumer is done with it, not when the array is next compacted.
    private var items: [(element: Element, cost: Int)?] = []
    private var head = 0
    private var cost = 0
    private var isClosed = false
    private var waitingProducers = 0
    private var waitingConsumers = 0
    private let maxCost: Int

    /// Creates a queue that holds at most `maxCost` (plus one element).
    init(maxCost: Int) { self.maxCost = maxCost }

    /// Appends `element`, waiting for room. Returns false (dropping it) once the queue is closed.
    @discardableResult
    func push(_ element: Element, cost elementCost: Int = 1) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !isClosed && cost > 0 && cost + elementCost > maxCost {
            waitingProducers += 1
            condition.wait()
            waitingProducers -= 1
        }
        if isClosed { return false }
        items.append((element, elementCost))
        cost += elementCost
        if waitingConsumers > 0 { condition.broadcast() }
        return true
    }

    /// Removes the oldest element, waiting for one. Returns nil when closed and empty.
    func pop() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while head == items.count && !isClosed {
            waitingConsumers += 1
            condition.wait()
            waitingConsumers -= 1
        }
        return takeLocked()
    }

    /// Removes the oldest element, waiting at most until `deadline`; nil when none came (or the
    /// queue is closed and empty).
    func pop(before deadline: Date) -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while head == items.count && !isClosed {
            waitingConsumers += 1
            let signalled = condition.wait(until: deadline)
            waitingConsumers -= 1
            if !signalled { break }
        }
        return takeLocked()
    }

    /// Removes the oldest element if there is one, without waiting.
    func tryPop() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        return takeLocked()
    }

    /// Whether the queue is closed and every element was taken.
    var isFinished: Bool {
        condition.lock()
        defer { condition.unlock() }
        return isClosed && head == items.count
    }

    /// Wakes every waiter; later pushes fail, pops drain what is left.
    func close() {
        condition.lock()
        isClosed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Drops everything queued and closes.
    func cancel() {
        condition.lock()
        items.removeAll()
        head = 0
        cost = 0
        isClosed = true
        condition.broadcast()
        condition.unlock()
    }

    private func takeLocked() -> Element? {
        guard head < items.count, let (element, elementCost) = items[head] else { return nil }
        items[head] = nil
        head += 1
        cost -= elementCost
        if head > 64 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        if waitingProducers > 0 { condition.broadcast() }
        return element
    }
}
