import ShareKit
import Synchronization

/// Questions to the user, one at a time: the others wait in order, and the one being asked knows
/// how many wait behind it. A question withdrawn while it waits (its ``PromptTicket``) leaves the
/// line at once. Shared by the terminal (``Prompter``) and desktop notifications
/// (``NotificationPrompter``).
final class QuestionQueue: Sendable {
    /// The question being asked and the ones waiting, in order.
    private let queue = Mutex<[Waiter]>([])
    /// Called (outside the lock) with this queue whenever a question joins or leaves the line.
    private let changed: @Sendable (QuestionQueue) -> Void

    private final class Waiter: Sendable {
        let turn = Wakeup()
    }

    init(changed: @escaping @Sendable (QuestionQueue) -> Void = { _ in }) {
        self.changed = changed
    }

    /// How many questions are waiting behind the one being asked.
    var waiting: Int { queue.withLock { max($0.count - 1, 0) } }

    /// `(2 more questions wait after this one)`, or empty when none waits.
    static func waitingNote(_ count: Int) -> String {
        count == 0 ? "" : "(\(count) more \(count == 1 ? "question waits" : "questions wait") after this one)"
    }

    /// Waits for the turn of a question, then asks it with `ask`; the question leaves the line when
    /// `ask` returns. A question withdrawn before its turn returns `withdrawn(reason)` unasked.
    func inTurn<Answer>(ticket: PromptTicket?, withdrawn: (String) -> Answer, _ ask: () -> Answer) -> Answer {
        let waiter = Waiter()
        let first = queue.withLock { queue in
            queue.append(waiter)
            return queue.count == 1
        }
        changed(self)
        defer {
            let next = queue.withLock { queue -> Waiter? in
                queue.removeAll { $0 === waiter }
                return queue.first
            }
            next?.turn.signal()
            changed(self)
        }
        if !first {
            // Wait for our turn, unless the question is withdrawn meanwhile.
            while !waiter.turn.isSignalled {
                if let reason = ticket?.withdrawal { return withdrawn(reason) }
                _ = waiter.turn.wait(timeout: .milliseconds(100))
            }
        }
        if let reason = ticket?.withdrawal { return withdrawn(reason) }
        return ask()
    }
}
