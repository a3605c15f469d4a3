import ShareKit

/// `share config`: the settings file (a group of subcommands).
struct ConfigCommand {
    static let spec = CommandSpec(
        name: "config",
        abstract: "Show and change settings: folder, port, policy, ...",
        discussion: """
            The settings live in one file, settings.json in the config folder ($SHARE_CONFIG_DIR, else \
            $XDG_CONFIG_HOME/share, else ~/.config/share). 'share receive' takes its defaults from it, \
            and options on its command line override them; a running 'share receive --service' reads \
            it again on SIGHUP ('systemctl --user reload share-receive'). A key that is not set takes \
            its default. Every value is checked when it is set, and again when the file is read. \
            With compression off, 'share send' sends every byte as it is (as with --no-compress) and \
            'share receive' asks senders not to compress. \
            With keep-in-bundles, files inside received folders keep their execute bits (as \
            'share receive --keep-executables'); a file sent on its own never does.
            """,
        subcommands: [ConfigListCommand.spec, ConfigGetCommand.spec, ConfigSetCommand.spec, ConfigUnsetCommand.spec],
        runnable: false,
        extraSections: [("KEYS", keyLines)]
    )

    /// One line per key for the KEYS section.
    static var keyLines: [String] {
        SettingKey.allCases.map { key in
            key.rawValue.rightPadded(14) + key.summary
        }
    }

    /// The key a user named, or a usage error listing the keys.
    static func key(_ text: String, _ parsed: ParsedArguments) throws(UsageError) -> SettingKey {
        guard let key = SettingKey(rawValue: text.lowercased()) else {
            var message = "Unknown setting '\(text)'"
            let names = SettingKey.allCases.map(\.rawValue)
            if let suggestion = EditDistance.suggestion(for: text.lowercased(), among: names) {
                message += ". Did you mean '\(suggestion)'?"
            } else {
                message += "; expected one of: \(names.joined(separator: ", "))"
            }
            throw parsed.usageError(message)
        }
        return key
    }

    /// Loads the settings, turning failures into CLI errors.
    static func load(_ paths: SharePaths) throws(CLIError) -> NodeSettings {
        do {
            return try NodeSettings.load(from: paths.configDirectory)
        } catch {
            throw CLIError(error.description)
        }
    }

    /// Changes the settings under their lock, turning failures into CLI errors (an invalid value: 64).
    static func update(
        _ paths: SharePaths, checkingName: Bool = true, _ change: (inout NodeSettings) throws(SettingError) -> Void
    ) throws(CLIError) {
        do {
            try NodeSettings.update(in: paths.configDirectory, checkingName: checkingName, change)
        } catch .invalid(let error) {
            throw CLIError(error.description, exitCode: ExitCode.usage)
        } catch {
            throw CLIError(error.description)
        }
    }
}
