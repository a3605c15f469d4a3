/// Why a Landlock ruleset could not be built.
struct LandlockError: Error, Sendable, CustomStringConvertible {
    /// What failed, for a message.
    var reason: String

    init(_ reason: String) { self.reason = reason }

    var description: String { reason }
}
