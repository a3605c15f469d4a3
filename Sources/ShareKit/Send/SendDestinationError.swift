/// Why a target could not be resolved to a ``SendDestination``: an unknown or ambiguous name, a
/// verified name that another machine now answers to, or discovery that could not be asked.
public struct SendDestinationError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for the user (peers' names in it are escaped already).
    public var message: String
    /// Whether it failed for want of a service (avahi-daemon): nothing about the target itself is
    /// known (exit 69 rather than 1).
    public var isServiceUnavailable: Bool
    /// The outcome code of JSON output (docs/JSON.md), when more specific than a failure:
    /// `notFound`, `ambiguous`, `identityMismatch`, `unavailable`, `failed`.
    public var outcome: String?

    /// Creates the error.
    init(_ message: String, isServiceUnavailable: Bool = false, outcome: String? = nil) {
        self.message = message
        self.isServiceUnavailable = isServiceUnavailable
        self.outcome = outcome
    }

    /// The ``message``.
    public var description: String { message }
}
