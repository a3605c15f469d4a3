import ShareKit
import TypeRegistry

/// `share types unregister APP-ID`: removes an application's registration.
struct TypesUnregisterCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "unregister",
        abstract: "Remove an application's registration.",
        discussion: """
            Its types and claims leave the registry; types another application (or the system) also \
            declares stay known. Documents already in the inbox stay there.
            """,
        arguments: [ArgumentSpec(name: "app-id", help: "The application's identifier (CFBundleIdentifier).")]
    )

    let applicationID: String

    init(_ parsed: ParsedArguments) throws(UsageError) {
        applicationID = parsed.positionals[0]
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        do {
            let removed = try LocalTypes.store(context).unregister(applicationID)
            context.console.line(
                "Unregistered \"\(TerminalText.safe(removed.name))\" (\(TerminalText.safe(removed.applicationID))).")
            return ExitCode.success
        } catch {
            throw CLIError(TerminalText.safe(error.description))
        }
    }
}
