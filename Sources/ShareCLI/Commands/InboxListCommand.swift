import Foundation
import ShareKit
import TypeRegistry

/// `share inbox list`: the documents waiting in the inbox.
struct InboxListCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "list",
        abstract: "List the documents in the inbox and why each is there.",
        discussion: """
            Also lists the transfers that stopped part-way and are kept so that their sender can \
            continue them (sending the same files again continues from there): who sent them, how \
            much arrived, and when they expire. Their files are never shown under their names until \
            they are complete; 'share inbox remove ID' deletes one.
            """,
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
        let store = EnvironmentWaits(console.environment).partialStore(inbox: inbox.directory)
        let partials = store.list()
        if json {
            console.line(
                JSON.object([
                    (
                        "entries",
                        .array(entries.map { TypesText.entryJSON($0, busy: inbox.isBusy($0.id), inbox: inbox) })
                    ),
                    ("partial", .array(partials.map { Self.partialJSON($0, store: store) })),
                    ("problems", .array(problems.map(JSON.string))),
                ]).pretty())
            return ExitCode.success
        }
        defer { printPartials(partials, store: store, console: console, after: !entries.isEmpty) }
        for problem in problems { console.warning(TerminalText.safe(problem)) }
        if entries.isEmpty {
            if partials.isEmpty { console.line("The inbox is empty.") }
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

    static func partialJSON(_ partial: PartialTransfer, store: PartialStore) -> JSON {
        .object([
            ("id", .string(partial.id)),
            ("items", .array(partial.items.map(JSON.string))),
            ("files", .int(Int64(partial.fileCount))),
            // As an inbox entry's sender (docs/JSON.md: one name, one meaning).
            ("sender", .object([("name", .string(partial.senderName)), ("fingerprint", .string(partial.senderFingerprint))])),
            ("heldBytes", .int(Int64(partial.heldBytes))),
            ("totalBytes", .int(Int64(partial.totalBytes))),
            ("updatedAt", .string(ISO8601DateFormatter().string(from: partial.updatedAt))),
            ("expiresAt", .string(ISO8601DateFormatter().string(from: partial.expires(keep: store.keep)))),
        ])
    }

    private func printPartials(_ partials: [PartialTransfer], store: PartialStore, console: Console, after: Bool) {
        guard !partials.isEmpty else { return }
        if after { console.line() }
        console.line("Stopped part-way, kept for their senders to continue:")
        for partial in partials {
            let names = partial.items.prefix(3).map { TerminalText.safe($0) }.joined(separator: ", ")
                + (partial.items.count > 3 ? " and \(partial.items.count - 3) more" : "")
            console.line(
                "\(partial.id)  \(names)  from \"\(TerminalText.safe(partial.senderName))\" "
                    + "(\(TrustCommandSupport.short(partial.senderFingerprint))), \(ByteCount.format(partial.heldBytes)) of "
                    + "\(ByteCount.format(partial.totalBytes)), kept until \(TypesText.shortDate(partial.expires(keep: store.keep)))")
        }
        console.line("Sending the same files again continues one; 'share inbox remove ID' deletes one.")
    }
}
