import Foundation
import ShareKit
import TypeRegistry

/// `share inbox import ID`: retries the import of a document in the inbox.
struct InboxImportCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "import",
        abstract: "Import a document from the inbox again.",
        discussion: """
            Resolves the document's type again with the applications registered now, and hands it to \
            the best one (or places it in the receive folder). The document leaves the inbox only when \
            that succeeds. The identifier may be shortened to a unique prefix of at least 4 digits.
            """,
        arguments: [ArgumentSpec(name: "id", help: "The entry's identifier, as 'share inbox list' shows it.")],
        options: [
            .value(
                "dir", "folder",
                help: "The receive folder for a document no application imports (default: your download folder)."),
            .flag("json", help: "Print the result as JSON."),
        ]
    )

    let id: String
    let directory: String?
    let json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        id = parsed.positionals[0]
        directory = parsed.value("dir")
        json = parsed.flag("json")
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let console = context.console
        let registry = LocalTypes.registry(context)
        let importer = DocumentImporter(
            inbox: Inbox(directory: context.paths.inboxDirectory), registry: registry,
            receiveFolder: LocalTypes.absolute(directory ?? context.paths.downloadDirectory),
            environment: console.environment)
        let result: ImportResult
        do {
            result = try await BlockingCall.run { () throws(InboxError) in try importer.importEntry(id) }
        } catch {
            throw CLIError(TerminalText.safe(error.description))
        }
        let home = context.paths.home
        if json {
            console.line(ReceivedReport.resultJSON(result, inbox: importer.inbox).pretty())
        } else {
            for warning in result.warnings { console.warning(TerminalText.safe(warning)) }
        }
        let name = "\"\(TerminalText.safe(result.entry.name))\""
        switch result.outcome {
        case .receiveFolder(let path):
            if !json {
                console.line(
                    "Placed \(name) in the receive folder: \(TerminalText.safe(DisplayPath.abbreviate(path, home: home))) "
                        + "(\(TerminalText.safe(result.receiveFolderReason ?? "no application imports it")))."
                )
            }
            return ExitCode.success
        case .imported(let path):
            if !json {
                let app = "\"\(TerminalText.safe(result.application?.name ?? "?"))\""
                let into = path.map { " into \(TerminalText.safe(DisplayPath.abbreviate($0, home: home)))" } ?? ""
                console.line("Imported \(name) with \(app)\(into).")
            }
            return ExitCode.success
        case .kept(let failure, _):
            throw CLIError(
                "\(name) stays in the inbox: \(TerminalText.safe(failure)); "
                    + "'share inbox remove \(result.entry.id)' deletes it")
        }
    }
}
