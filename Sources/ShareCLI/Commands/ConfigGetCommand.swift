import ShareKit

/// `share config get KEY`: prints one value (its default when it is not set).
struct ConfigGetCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "get",
        abstract: "Print the value of one setting.",
        discussion: "Prints the value alone on one line: the default when the key is not set.",
        arguments: [ArgumentSpec(name: "key", help: "A key from 'share help config' (name, dir, port, accept, ...).")]
    )

    let key: SettingKey

    init(_ parsed: ParsedArguments) throws(UsageError) {
        key = try ConfigCommand.key(parsed.positionals[0], parsed)
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let settings = try ConfigCommand.load(context.paths)
        context.console.line(TerminalText.safe(key.text(in: settings) ?? key.defaultText(paths: context.paths)))
        return ExitCode.success
    }
}
