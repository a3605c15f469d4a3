import ShareKit

/// The `share` command line: parses arguments, runs the command, maps every outcome to output and
/// an exit code in one place (help: stdout, 0; usage errors: stderr, 64; failures: stderr, 1 or
/// the command's code).
public enum ShareCLI {
    /// The version `share --version` prints.
    public static let version = "0.1.0"

    /// Runs `share` with `arguments` (including the program name) and returns the exit code.
    public static func run(_ arguments: [String], console: Console) async -> Int32 {
        let root = CommandTable.root
        switch ArgumentParser.parse(arguments, root: root) {
        case .failure(let error):
            console.err(HelpRenderer.usageError(error, root: root))
            return ExitCode.usage
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
                console.err(HelpRenderer.usageError(error, root: root))
                return ExitCode.usage
            }
            let context = CommandContext(console: console, paths: SharePaths(environment: console.environment))
            do {
                return try await command.run(context)
            } catch {
                if let usage = error.usage {
                    console.err(HelpRenderer.usageError(usage, root: root))
                } else {
                    console.error(error.message)
                }
                return error.exitCode
            }
        }
    }
}
