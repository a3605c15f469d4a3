import ShareKit

/// `share completion SHELL`: prints the completion script for bash, zsh or fish.
struct CompletionCommand: ShareCommand {
    /// It only prints its script: it runs without a home folder.
    static let keepsFilesUnderHome = false

    static let spec = CommandSpec(
        name: "completion",
        abstract: "Print a completion script for bash, zsh or fish.",
        discussion: """
            The script completes commands, options, files and folders, setting keys and values, \
            and the names of the receivers nearby for --to (from 'share peers --names', waiting at \
            most a second or two). 'make install' installs it for each shell; to load it by hand: \
            'source <(share completion bash)', 'share completion zsh > ~/.zfunc/_share' (a folder \
            in your fpath), or 'share completion fish > ~/.config/fish/completions/share.fish'.
            """,
        arguments: [ArgumentSpec(name: "shell", help: "bash, zsh or fish.")]
    )

    let shell: String

    init(_ parsed: ParsedArguments) throws(UsageError) {
        shell = parsed.positionals[0]
        guard ["bash", "zsh", "fish"].contains(shell) else {
            throw parsed.usageError("The shell '\(shell)' is not one share completes; expected bash, zsh or fish")
        }
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let root = CommandTable.root
        switch shell {
        case "bash": context.console.out(CompletionScript.bash(root))
        case "zsh": context.console.out(CompletionScript.zsh(root))
        default: context.console.out(CompletionScript.fish(root))
        }
        return ExitCode.success
    }
}
