import ShareKit
import TypeRegistry

/// `share config list`: every key with its value, marking defaults and keys not applied yet.
struct ConfigListCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "list",
        abstract: "List every setting and its value.",
        discussion: """
            Prints each key and its value; '(default)' marks a key that is not set, and keys this \
            version stores without acting on them yet are marked as such. Keys the file holds that \
            this version does not know are listed in a warning.
            """,
        options: [
            .flag(
                "json", help: "Print an object: each key with its value, whether it is set, and whether it is applied.")
        ]
    )

    let json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        json = parsed.flag("json")
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let settings = try ConfigCommand.load(context.paths)
        let console = context.console
        if json {
            console.line(
                JSON.object(
                    SettingKey.allCases.map { key in
                        let value = key.text(in: settings)
                        return (
                            key.rawValue,
                            .object([
                                ("value", .string(value ?? key.defaultText(paths: context.paths))),
                                ("set", .bool(value != nil)), ("applied", .bool(key.isApplied)),
                            ])
                        )
                    }
                ).pretty())
        } else {
            for key in SettingKey.allCases {
                let value = key.text(in: settings)
                var notes: [String] = []
                if value == nil { notes.append("default") }
                if !key.isApplied { notes.append("stored, not applied yet") }
                let shown = TerminalText.safe(value ?? key.defaultText(paths: context.paths))
                console.line(
                    (key.rawValue.rightPadded(14) + shown
                        + (notes.isEmpty ? "" : " (\(notes.joined(separator: "; ")))"))
                        .trimmingTrailingSpaces())
            }
        }
        if !settings.unknownKeys.isEmpty {
            console.warning(
                "\(context.paths.configDirectory)/\(NodeSettings.fileName) has keys this version does not know (kept, "
                    + "ignored): \(settings.unknownKeys.map(TerminalText.safe).joined(separator: ", "))")
        }
        return ExitCode.success
    }
}
