/// Why an import did not succeed; the document stays in the inbox.
struct ImportFailure: Error, Sendable, CustomStringConvertible {
    /// A sentence for the receiver's user.
    var message: String
    /// Whether an importer ran out of time.
    var timedOut = false

    init(_ message: String, timedOut: Bool = false) {
        self.message = message
        self.timedOut = timedOut
    }

    var description: String { message }
}
