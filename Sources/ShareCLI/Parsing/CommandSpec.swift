/// The declarative description of a command: one spec drives parsing, usage, help and errors, so
/// they cannot drift apart.
struct CommandSpec: Sendable {
    /// The command's name (`send`).
    var name: String
    /// One line for OVERVIEW and the parent's SUBCOMMANDS list.
    var abstract: String
    /// Paragraphs after the overview.
    var discussion: String = ""
    /// Positional arguments, in order.
    var arguments: [ArgumentSpec] = []
    /// Options (help is added automatically).
    var options: [OptionSpec] = []
    /// Subcommands.
    var subcommands: [CommandSpec] = []
    /// The usage line after the command path, when the automatic one is not right.
    var usageOverride: String?
    /// Whether the command does something itself (a command that only groups subcommands prints
    /// its help when run bare).
    var runnable = true
    /// Extra sections printed after OPTIONS (title, lines).
    var extraSections: [(String, [String])] = []
    /// Whether it is left out of help, man pages and completions (tools for `make install`).
    var hidden = false

    /// `share help [COMMAND]`, for `share help help`.
    static let help = CommandSpec(
        name: "help",
        abstract: "Show the help of a command.",
        discussion: "Prints the same text as 'share COMMAND --help'; without a command, the overview of share.",
        arguments: [ArgumentSpec(name: "command", help: "A command, e.g. 'send' or 'trust ca add'.", repeating: true, optional: true)])

    /// The help option every command has.
    static let helpOption = OptionSpec.flag("help", short: "h", help: "Show help information.")

    /// Options including `--help`.
    var allOptions: [OptionSpec] { options + [Self.helpOption] }

    func subcommand(named name: String) -> CommandSpec? {
        subcommands.first { $0.name == name }
    }

    /// The subcommands help, man pages and completions show.
    var visibleSubcommands: [CommandSpec] { subcommands.filter { !$0.hidden } }

    /// The usage line after `share ...`.
    var usageTail: String {
        if let usageOverride { return usageOverride }
        var parts: [String] = []
        if !subcommands.isEmpty && arguments.isEmpty && options.isEmpty { return "<subcommand>" }
        for argument in arguments { parts.append(argument.usageForm) }
        for option in options { parts.append("[\(option.usageForm)]") }
        return parts.joined(separator: " ")
    }
}
