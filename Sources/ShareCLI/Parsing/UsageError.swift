/// A command line that does not match its command's spec; printed with the usage, exit 64.
struct UsageError: Error, Sendable {
    /// The message after `Error: `.
    var message: String
    /// The command path the error belongs to (`share send`), for the usage and help hint.
    var commandPath: [String]
}
