import Synchronization

/// Tells running imports to stop: a receiver that is stopping ends the importer commands it
/// started (SIGTERM, then SIGKILL) instead of waiting for their timeouts; their documents stay in
/// the inbox.
public final class ImportCancellation: Sendable {
    private let flag = Atomic<Bool>(false)

    /// A token that is not cancelled.
    public init() {}

    /// Asks the imports to stop.
    public func cancel() { flag.store(true, ordering: .relaxed) }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { flag.load(ordering: .relaxed) }
}
