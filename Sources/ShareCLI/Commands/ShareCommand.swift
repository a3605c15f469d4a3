import ShareKit

/// A runnable command: its spec, how it binds parsed arguments, and what it does.
protocol ShareCommand {
    /// The command's declarative description.
    static var spec: CommandSpec { get }
    /// Validates and binds the parsed arguments (usage errors exit 64).
    init(_ parsed: ParsedArguments) throws(UsageError)
    /// Runs the command and returns its exit code (failures throw ``CLIError``).
    func run(_ context: CommandContext) async throws(CLIError) -> Int32
    /// The command as a ``BlockingCommand`` when it is one (a requirement rather than an `as?`
    /// cast, which would make the Swift runtime scan every protocol conformance in the executable
    /// the first time: a tenth of `share types resolve`'s time in Swift code).
    var blocking: (any BlockingCommand)? { get }
    /// Whether the command may keep files under the home folder (identity, settings, history,
    /// received files, caches): such a command fails at once when HOME does not exist.
    static var keepsFilesUnderHome: Bool { get }
}

extension ShareCommand {
    var blocking: (any BlockingCommand)? { nil }
    static var keepsFilesUnderHome: Bool { true }
}

/// What every command gets: the console and the paths it works with.
struct CommandContext: Sendable {
    /// Output streams and terminal facts.
    var console: Console
    /// Config, data and download folders.
    var paths: SharePaths
}

/// A command that only reads local files and prints (`share types resolve`). `share` runs it on the
/// thread it started on, before Swift's concurrency runtime starts any thread of its own
/// (``ShareCLI/runWithoutTasks(_:console:)``): starting and waking those threads was a third of
/// the time of typing one file (docs/PERFORMANCE.md §6).
protocol BlockingCommand: ShareCommand, Sendable {
    /// Runs the command on the calling thread, which it may block.
    func runBlocking(_ context: CommandContext) throws(CLIError) -> Int32
}

extension BlockingCommand {
    var blocking: (any BlockingCommand)? { self }

    /// From a task: on a thread of its own, never on the cooperative pool.
    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let command = self
        return try await BlockingCall.run { () throws(CLIError) -> Int32 in try command.runBlocking(context) }
    }
}
