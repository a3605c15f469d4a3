import Foundation
import ShareKit

/// `share config set KEY VALUE`: checks and stores one value.
struct ConfigSetCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "set",
        abstract: "Change one setting.",
        discussion: """
            Checks VALUE and stores it; an invalid value changes nothing and says what the key \
            accepts. A running 'share receive --service' applies the change when it is reloaded \
            ('systemctl --user reload share-receive'); a 'share receive' in a terminal, when it is \
            started again.
            """,
        arguments: [
            ArgumentSpec(name: "key", help: "A key from 'share help config'."),
            ArgumentSpec(name: "value", help: "Its new value."),
        ]
    )

    let key: SettingKey
    let value: String

    init(_ parsed: ParsedArguments) throws(UsageError) {
        key = try ConfigCommand.key(parsed.positionals[0], parsed)
        value = parsed.positionals[1]
        if key == .dir, let problem = ReceiveCommand.unsafeFolderProblem(value) {
            throw parsed.usageError("Refusing the folder '\(value)': \(problem)")
        }
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        var stored: String?
        let workingDirectory = FileManager.default.currentDirectoryPath
        try ConfigCommand.update(context.paths) { (settings: inout NodeSettings) throws(SettingError) in
            try key.set(value, in: &settings, workingDirectory: workingDirectory, home: context.paths.home)
            stored = key.text(in: settings)
        }
        let shown = TerminalText.safe(stored ?? key.defaultText(paths: context.paths))
        context.console.line(
            "\(key.rawValue) = \(shown)" + (key.isApplied ? "" : " (stored; this version does not apply it yet)"))
        return ExitCode.success
    }
}
