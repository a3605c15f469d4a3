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
        let root = CommandTable.root
        let wantsJSON = arguments.dropFirst().prefix { $0 != "--" }.contains("--json")
        switch ArgumentParser.parse(arguments, root: root) {
        case .failure(let error):
            return usageError(error, root: root, json: wantsJSON, console: console)
        case .success(.help(let path)):
            console.out(HelpRenderer.help(for: path, width: console.width))
            return ExitCode.success
        case .success(.version):
            console.line("share \(version)")
            return ExitCode.success
        case .success(.run(let path, let parsed)):
            guard let type = CommandTable.command(for: path) else {
                console.out(HelpRenderer.help(for: path, width: console.width))
                return ExitCode.success
            }
            let command: any ShareCommand
            do {
                command = try type.init(parsed)
            } catch {
                return usageError(error, root: root, json: wantsJSON, console: console)
            }
            let context = CommandContext(console: console, paths: SharePaths(environment: console.environment))
            do {
                return try await command.run(context)
            } catch {
                if parsed.flag("json") { console.line(errorJSON(error.message, outcome: error.outcomeCode).text()) }
                if let usage = error.usage {
                    console.err(HelpRenderer.usageError(usage, root: root))
                } else {
                    console.error(error.message)
                }
                return error.exitCode
            }
        }
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
