import Foundation
import ShareKit
import TypeRegistry

/// `share history`: past transfers in both directions.
struct HistoryCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "history",
        abstract: "List past transfers, sent and received.",
        discussion: """
            Lists the transfers this user sent and received, oldest first: when, the peer (the name it \
            gave, the name you verified it under, and its fingerprint), the items and their size, how \
            it ended, and where each item landed or why it did not. File contents are never recorded.

            The history is $XDG_STATE_HOME/share/history.jsonl (else ~/.local/state/share), one JSON \
            object per line, only ever appended to. When it reaches 1 MiB it is renamed to \
            history.jsonl.1, replacing the previous one, and a new file begins: at most 2 MiB are \
            kept, and always the most recent 1 MiB (thousands of transfers). A record lists at most \
            100 items and counts the rest. Delete the files to clear the history.
            """,
        options: [
            .value("limit", "count", help: "Show the most recent <count> transfers (default 50)."),
            .flag("all", help: "Show every transfer kept."),
            .flag("json", help: "Print a JSON array of the transfers, as recorded."),
        ]
    )

    let limit: Int?
    let json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        if parsed.flag("all") && parsed.value("limit") != nil {
            throw parsed.usageError("--all and --limit cannot be used together")
        }
        limit = parsed.flag("all") ? nil : try parsed.integer("limit", in: 1...1_000_000) ?? 50
        json = parsed.flag("json")
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let history = TransferHistory(paths: context.paths)
        let (all, unreadable) = try Self.load(history)
        let records = limit.map { Array(all.suffix($0)) } ?? all
        let console = context.console
        if json {
            console.line(JSON.array(records.map(Self.json)).pretty())
        } else if records.isEmpty {
            console.line("No transfers yet.")
        } else {
            for record in records { console.out(Self.text(record, home: context.paths.home)) }
        }
        if unreadable > 0 {
            console.warning(
                "\(unreadable) line\(unreadable == 1 ? "" : "s") of \(history.path) could not be read and \(unreadable == 1 ? "was" : "were") left out"
            )
        }
        return ExitCode.success
    }

    /// Says (as a warning) that a transfer could not be recorded in the history.
    static func warn(_ problem: ConfigurationError?, _ console: Console) {
        if let problem { console.warning("the transfer was not recorded in the history: \(problem)") }
    }

    static func load(_ history: TransferHistory) throws(CLIError) -> (records: [TransferRecord], unreadable: Int) {
        do {
            return try history.records()
        } catch {
            throw CLIError(error.description)
        }
    }

    /// A record as lines of text: a summary, then one line per item.
    static func text(_ record: TransferRecord, home: String) -> String {
        let time = timeFormatter.string(from: record.time)
        let direction = record.direction == .sent ? "sent to" : "received from"
        let count = record.items.count + record.moreItems
        var line =
            "\(time)  \(direction) \(peer(record.peer))  \(count) item\(count == 1 ? "" : "s"), \(ByteCount.format(record.bytes))"
        switch record.outcome {
        case .completed: line += "  completed"
        case .declined: line += "  declined: " + TerminalText.safe(record.reason ?? "")
        case .failed: line += "  failed: " + TerminalText.safe(record.reason ?? "")
        }
        var lines = [line]
        for item in record.items {
            let name = TerminalText.safe(item.name) + (item.bundle ? "/" : "")
            let place = item.location.map { TerminalText.safe(DisplayPath.abbreviate($0, home: home)) }
            switch item.outcome {
            case "placed", "receiveFolder", "delivered": lines.append("    \(name) -> \(place ?? "?")")
            case "imported": lines.append("    \(name) -> imported" + (place.map { ": \($0)" } ?? ""))
            case "keptInInbox", "kept": lines.append("    \(name) -> kept in the inbox: \(TerminalText.safe(item.reason ?? ""))")
            default: lines.append("    \(name): not delivered")
            }
        }
        if record.moreItems > 0 { lines.append("    and \(record.moreItems) more") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `"bob" (verified as "bob-desk", 5C4E 12AB 9F00 3E21)`.
    static func peer(_ peer: TransferRecord.Peer) -> String {
        var text = "\"\(TerminalText.safe(peer.name))\""
        var notes: [String] = []
        if let pinned = peer.pinnedName, pinned != peer.name {
            notes.append("verified as \"\(TerminalText.safe(pinned))\"")
        }
        if let fingerprint = peer.fingerprint { notes.append(TrustCommandSupport.short(fingerprint)) }
        if peer.localSendFingerprint != nil { notes.append("LocalSend device, not verified") }
        if !notes.isEmpty { text += " (" + notes.joined(separator: ", ") + ")" }
        return text
    }

    /// The JSON of a record: the recorded fields, in a documented order.
    static func json(_ record: TransferRecord) -> JSON {
        func optional(_ text: String?) -> JSON { text.map(JSON.string) ?? .null }
        return .object([
            ("time", .string(isoFormatter.string(from: record.time))),
            ("direction", .string(record.direction.rawValue)),
            (
                "peer",
                .object([
                    ("name", .string(record.peer.name)), ("pinnedName", optional(record.peer.pinnedName)),
                    ("fingerprint", optional(record.peer.fingerprint)), ("address", optional(record.peer.address)),
                ] + (record.peer.localSendFingerprint.map { [("localsendFingerprint", JSON.string($0))] } ?? []))
            ),
            ("outcome", .string(record.outcome.rawValue)),
            ("reason", optional(record.reason)),
            (
                "items",
                .array(
                    record.items.map { item in
                        .object([
                            ("name", .string(item.name)), ("bundle", .bool(item.bundle)),
                            ("bytes", .int(Int64(clamping: item.bytes))),
                            ("outcome", .string(item.outcome)), ("location", optional(item.location)),
                            ("reason", optional(item.reason)),
                        ])
                    })
            ),
            ("moreItems", .int(Int64(record.moreItems))),
            ("files", .int(Int64(record.files))),
            ("bytes", .int(Int64(clamping: record.bytes))),
        ])
    }

    private static var timeFormatter: DateFormatter {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        formatter.locale = Locale(identifier: "en_US_POSIX")
        return formatter
    }

    private static var isoFormatter: ISO8601DateFormatter { ISO8601DateFormatter() }
}
