import ShareKit

/// `share inbox remove ID`: deletes a document from the inbox.
struct InboxRemoveCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "remove",
        abstract: "Delete a document from the inbox without importing it.",
        arguments: [ArgumentSpec(name: "id", help: "The entry's identifier, as 'share inbox list' shows it.")]
    )

    let id: String

    init(_ parsed: ParsedArguments) throws(UsageError) {
        id = parsed.positionals[0]
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        do {
            let entry = try Inbox(directory: context.paths.inboxDirectory).remove(id)
            context.console.line("Removed \(entry.id) (\"\(TerminalText.safe(entry.name))\") from the inbox.")
            return ExitCode.success
        } catch {
            throw CLIError(TerminalText.safe(error.description))
        }
    }
}
