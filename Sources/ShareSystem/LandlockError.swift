/// Why a Landlock ruleset could not be built.
package struct LandlockError: Error, Sendable, CustomStringConvertible {
    /// What failed, for a message.
    package var reason: String

    package init(_ reason: String) { self.reason = reason }

    package var description: String { reason }
}
