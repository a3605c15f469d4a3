/// A failure the CLI reports as `Error: ...` with a specific exit code.
struct CLIError: Error, Sendable, CustomStringConvertible {
    /// The message after `Error: `.
    var message: String
    /// The exit code.
    var exitCode: Int32
    /// The outcome code of JSON output (docs/JSON.md), when more specific than the exit code says.
    var outcome: String?
    /// A usage error found only when the command ran (it needed the terminal or the settings):
    /// printed with the usage, exit 64.
    var usage: UsageError?

    init(_ message: String, exitCode: Int32 = ExitCode.failure, outcome: String? = nil) {
        self.message = message
        self.exitCode = exitCode
        self.outcome = outcome
    }

    /// The outcome code of JSON output: `usage` (64), `unavailable` (69), else the specific code or `failed`.
    var outcomeCode: String {
        switch exitCode {
        case ExitCode.usage: "usage"
        case ExitCode.unavailable: "unavailable"
        default: outcome ?? "failed"
        }
    }

    /// A usage error, printed as the parser's are.
    init(usage: UsageError) {
        self.init(usage.message, exitCode: ExitCode.usage)
        self.usage = usage
    }

    var description: String { message }
}

/// The exit codes of `share` (listed in `share --help`).
enum ExitCode {
    /// Success (and help).
    static let success: Int32 = 0
    /// A failure.
    static let failure: Int32 = 1
    /// A usage error (EX_USAGE).
    static let usage: Int32 = 64
    /// A needed service, such as avahi-daemon, is unavailable (EX_UNAVAILABLE).
    static let unavailable: Int32 = 69
}
