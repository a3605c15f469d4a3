import Foundation
import ShareKit
import TypeRegistry

/// `share inbox list`: the documents waiting in the inbox.
struct InboxListCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "list",
        abstract: "List the documents in the inbox and why each is there.",
        options: [.flag("json", help: "Print the entries as JSON.")]
    )

    let json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        json = parsed.flag("json")
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let console = context.console
        let inbox = Inbox(directory: context.paths.inboxDirectory)
        let (entries, problems) = inbox.entries()
        if json {
            console.line(
                JSON.object([
                    (
                        "entries",
                        .array(entries.map { TypesText.entryJSON($0, busy: inbox.isBusy($0.id), inbox: inbox) })
                    ),
                    ("problems", .array(problems.map(JSON.string))),
                ]).pretty())
            return ExitCode.success
        }
        for problem in problems { console.warning(TerminalText.safe(problem)) }
        if entries.isEmpty {
            console.line("The inbox is empty.")
            return ExitCode.success
        }
        for entry in entries {
            let busy = inbox.isBusy(entry.id)
            let state = busy ? "importing" : entry.state.rawValue
            let size =
                entry.isBundle
                ? "\(entry.files) \(entry.files == 1 ? "file" : "files"), \(ByteCount.format(entry.bytes))"
                : ByteCount.format(entry.bytes)
            console.line(
                "\(entry.id)  \(state.padding(toLength: 9, withPad: " ", startingAt: 0))  "
                    + "\(TerminalText.safe(entry.name))\(entry.isBundle ? "/" : "")  from \"\(TerminalText.safe(entry.senderName))\", "
                    + "\(TypesText.shortDate(entry.receivedAt)), \(size)")
            let pad = String(repeating: " ", count: entry.id.count + 2)
            var detail: [String] = []
            if let type = entry.resolvedType ?? entry.declaredType {
                detail.append(TerminalText.safe(DynamicType.readableDescription(of: TypeIdentifier(type)) ?? type))
            }
            if entry.attempts > 0 { detail.append("\(entry.attempts) \(entry.attempts == 1 ? "attempt" : "attempts")") }
            if !detail.isEmpty { console.line(pad + detail.joined(separator: ", ")) }
            if let failure = entry.failure, entry.state == .failed {
                console.line(pad + "failed: " + TerminalText.safe(failure))
            } else if entry.state == .pending && !busy {
                console.line(pad + "not imported: the receiver stopped before importing it")
            }
            if !busy {
                console.line(pad + "retry with 'share inbox import \(entry.id)', or 'share inbox remove \(entry.id)'")
            }
        }
        return ExitCode.success
    }
}
