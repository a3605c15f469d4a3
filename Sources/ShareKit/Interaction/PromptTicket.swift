import ShareTransport
import Synchronization

/// A question put to a person (an offer to accept, a code to compare) that the program may
/// withdraw while it is being asked: the peer gave up, the other side's user answered first, or
/// the program is stopping. Whoever asks (a terminal prompt, a notification) watches the ticket and
/// stops asking at once when it is withdrawn.
public final class PromptTicket: Sendable {
    private let wake = WakeSignal()
    private let reason = Mutex<String?>(nil)

    /// A ticket for a new question.
    public init() {}

    /// Withdraws the question; `why` is shown to the user in place of the question.
    public func withdraw(_ why: String) {
        reason.withLock { if $0 == nil { $0 = why } }
        wake.signal()
    }

    /// Why the question was withdrawn, or nil while it stands.
    public var withdrawal: String? { reason.withLock { $0 } }

    /// A descriptor that becomes readable when the question is withdrawn (for `poll(2)`).
    public var descriptor: Int32 { wake.descriptor }
}

/// An answer that arrives on another thread, and wakes the thread that waits for it.
final class PendingAnswer<Value: Sendable>: Sendable {
    /// Signalled once the answer is in.
    let wake = WakeSignal()
    private let box = Mutex<Value?>(nil)

    /// Records the answer (the first one counts) and wakes the waiter.
    func set(_ value: Value) {
        box.withLock { if $0 == nil { $0 = value } }
        wake.signal()
    }

    /// The answer, once given.
    var value: Value? { box.withLock { $0 } }
}
