import ShareKit
import TypeRegistry

/// The `share` command line: parses arguments, runs the command, maps every outcome to output and
/// an exit code in one place (help: stdout, 0; usage errors: stderr, 64; failures: stderr, 1 or
/// the command's code). Under `--json` a usage error or a failure is also printed on stdout as a
/// JSON error object (docs/JSON.md), so a script always gets JSON.
public enum ShareCLI {
    /// The version `share --version` prints.
    public static let version = "0.1.0"

    /// Runs `share` with `arguments` (including the program name) and returns the exit code.
    public static func run(_ arguments: [String], console: Console) async -> Int32 {
        switch prepare(arguments, console: console) {
        case .finished(let status):
            return status
        case .ready(let command, let context, let json):
            do {
                return try await command.run(context)
            } catch {
                return failed(error, json: json, console: console)
            }
        }
    }

    /// Runs `share` with `arguments` on the calling thread, without tasks, when that is all it takes:
    /// help, the version, a usage error or a ``BlockingCommand`` such as `share types resolve`.
    /// Returns the exit code, or `nil` (nothing printed) when the command needs ``run(_:console:)``.
    public static func runWithoutTasks(_ arguments: [String], console: Console) -> Int32? {
        switch prepare(arguments, console: console) {
        case .finished(let status):
            return status
        case .ready(let command, let context, let json):
            guard let command = command.blocking else { return nil }
            do {
                return try command.runBlocking(context)
            } catch {
                return failed(error, json: json, console: console)
            }
        }
    }

    /// What parsing `arguments` left to do.
    private enum Preparation {
        /// Help, the version or a usage error was printed: exit with this code.
        case finished(Int32)
        /// Run this command (`json`: it was given --json).
        case ready(any ShareCommand, CommandContext, json: Bool)
    }

    private static func prepare(_ arguments: [String], console: Console) -> Preparation {
        let root = CommandTable.root
        let wantsJSON = arguments.dropFirst().prefix { $0 != "--" }.contains("--json")
        switch ArgumentParser.parse(arguments, root: root) {
        case .failure(let error):
            return .finished(usageError(error, root: root, json: wantsJSON, console: console))
        case .success(.help(let path)):
            console.out(HelpRenderer.help(for: path, width: console.width))
            return .finished(ExitCode.success)
        case .success(.version):
            console.line("share \(version)")
            return .finished(ExitCode.success)
        case .success(.run(let path, let parsed)):
            guard let type = CommandTable.command(for: path) else {
                console.out(HelpRenderer.help(for: path, width: console.width))
                return .finished(ExitCode.success)
            }
            do {
                let command = try type.init(parsed)
                let context = CommandContext(console: console, paths: SharePaths(environment: console.environment))
                if type.keepsFilesUnderHome && context.paths.lacksHome() {
                    return .finished(failed(missingHome(context.paths.home), json: parsed.flag("json"), console: console))
                }
                return .ready(command, context, json: parsed.flag("json"))
            } catch {
                return .finished(usageError(error, root: root, json: wantsJSON, console: console))
            }
        }
    }

    /// HOME names no folder: an error of the environment, not of the command line (exit 1), said
    /// before anything is created (creating share's folders would create a home folder too).
    private static func missingHome(_ home: String) -> CLIError {
        CLIError(
            "the home folder '\(TerminalText.safe(home))' (HOME) does not exist, and share keeps its identity, settings and "
                + "received files in it; create it, or set HOME to the folder that should hold them")
    }

    private static func failed(_ error: CLIError, json: Bool, console: Console) -> Int32 {
        if json { console.line(errorJSON(error.message, outcome: error.outcomeCode).text()) }
        if let usage = error.usage {
            console.err(HelpRenderer.usageError(usage, root: CommandTable.root))
        } else {
            console.error(error.message)
        }
        return error.exitCode
    }

    private static func usageError(_ error: UsageError, root: CommandSpec, json: Bool, console: Console) -> Int32 {
        if json { console.line(errorJSON(error.message, outcome: "usage").text()) }
        console.err(HelpRenderer.usageError(error, root: root))
        return ExitCode.usage
    }

    /// `{"ok":false,"outcome":"usage","error":"..."}`: what every command prints on stdout under
    /// `--json` when it fails as a whole (docs/JSON.md).
    static func errorJSON(_ message: String, outcome: String) -> JSON {
        .object([("ok", .bool(false)), ("outcome", .string(outcome)), ("error", .string(message))])
    }
}
