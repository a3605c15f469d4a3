import Synchronization

/// Set from the sending thread when the receiver accepted the offer; read by the retry loop.
final class AcceptanceFlag: Sendable {
    private let value = Atomic<Bool>(false)

    /// Records that the receiver accepted.
    func set() { value.store(true, ordering: .relaxed) }

    /// Whether the receiver accepted.
    var isSet: Bool { value.load(ordering: .relaxed) }
}
