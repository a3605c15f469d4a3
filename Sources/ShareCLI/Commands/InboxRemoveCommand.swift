import ShareKit

/// `share inbox remove ID`: deletes a document from the inbox.
struct InboxRemoveCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "remove",
        abstract: "Delete a document from the inbox without importing it, or a transfer kept part-way.",
        arguments: [ArgumentSpec(name: "id", help: "The entry's identifier, as 'share inbox list' shows it.")]
    )

    let id: String

    init(_ parsed: ParsedArguments) throws(UsageError) {
        id = parsed.positionals[0]
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let store = EnvironmentWaits(context.console.environment).partialStore(inbox: context.paths.inboxDirectory)
        if id.hasPrefix("r-") || !store.find(id).isEmpty {
            let matches = store.find(id)
            guard matches.count == 1 else {
                throw CLIError(
                    matches.isEmpty
                        ? "no transfer kept part-way has the identifier '\(TerminalText.safe(id))'; see 'share inbox list'"
                        : "'\(TerminalText.safe(id))' matches several transfers kept part-way; give more of the identifier")
            }
            guard store.remove(matches[0]) else {
                throw CLIError("\(matches[0].id) is being continued by a running receiver right now; try again when it ends")
            }
            context.console.line("Removed \(matches[0].id) (a transfer kept part-way) from the inbox.")
            return ExitCode.success
        }
        do {
            let entry = try Inbox(directory: context.paths.inboxDirectory).remove(id)
            context.console.line("Removed \(entry.id) (\"\(TerminalText.safe(entry.name))\") from the inbox.")
            return ExitCode.success
        } catch {
            throw CLIError(TerminalText.safe(error.description))
        }
    }
}
