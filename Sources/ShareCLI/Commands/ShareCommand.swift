import ShareKit

/// A runnable command: its spec, how it binds parsed arguments, and what it does.
protocol ShareCommand {
    /// The command's declarative description.
    static var spec: CommandSpec { get }
    /// Validates and binds the parsed arguments (usage errors exit 64).
    init(_ parsed: ParsedArguments) throws(UsageError)
    /// Runs the command and returns its exit code (failures throw ``CLIError``).
    func run(_ context: CommandContext) async throws(CLIError) -> Int32
}

/// What every command gets: the console and the paths it works with.
struct CommandContext: Sendable {
    /// Output streams and terminal facts.
    var console: Console
    /// Config, data and download folders.
    var paths: SharePaths
}
