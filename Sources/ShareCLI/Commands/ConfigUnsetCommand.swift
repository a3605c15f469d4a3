import ShareKit

/// `share config unset KEY`: removes one value, so its default applies again.
struct ConfigUnsetCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "unset",
        abstract: "Return one setting to its default.",
        arguments: [ArgumentSpec(name: "key", help: "A key from 'share help config'.")]
    )

    let key: SettingKey

    init(_ parsed: ParsedArguments) throws(UsageError) {
        key = try ConfigCommand.key(parsed.positionals[0], parsed)
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        try ConfigCommand.update(context.paths) { (settings: inout NodeSettings) throws(SettingError) in
            key.unset(in: &settings)
        }
        context.console.line("\(key.rawValue) = \(TerminalText.safe(key.defaultText(paths: context.paths))) (default)")
        return ExitCode.success
    }
}
