/// Why an import did not succeed; the document stays in the inbox.
struct ImportFailure: Error, Sendable, CustomStringConvertible {
    /// A sentence for the receiver's user.
    var message: String
    /// Whether an importer ran out of time.
    var timedOut = false
    /// Whether the importer needs the document's password (it exited with
    /// ``DocumentImporter/passwordExitStatus``), or did not accept the one given.
    var needsPassword = false

    init(_ message: String, timedOut: Bool = false, needsPassword: Bool = false) {
        self.message = message
        self.timedOut = timedOut
        self.needsPassword = needsPassword
    }

    var description: String { message }
}
