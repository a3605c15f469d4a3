import ShareKit
import TypeRegistry

/// What `share receive` (and `share inbox import`) say about each received document: where it
/// landed and how, as text and as JSON.
enum ReceivedReport {
    /// One or more lines per item, indented, for the human report after "Received ...".
    static func itemLines(_ transfer: ReceivedTransfer, home: String) -> [String] {
        var lines: [String] = []
        for item in transfer.items {
            let result = item.result
            let name = TerminalText.safe(item.name) + (item.isBundle ? "/" : "")
            switch result.outcome {
            case .receiveFolder(let path):
                lines.append(
                    "  " + TerminalText.safe(DisplayPath.abbreviate(path, home: home)) + (item.isBundle ? "/" : ""))
            case .imported(let path):
                let app = "\"\(TerminalText.safe(result.application?.name ?? "?"))\""
                let into = path.map { " into " + TerminalText.safe(DisplayPath.abbreviate($0, home: home)) } ?? ""
                lines.append("  \(name): imported by \(app)\(into)")
            case .kept(let failure, _) where result.mismatch != nil:
                let id = result.entry.id
                let at = item.path.map { "it is at " + TerminalText.safe(DisplayPath.abbreviate($0, home: home)) + "; " }
                lines.append(
                    "  \(name): kept in the inbox as \(id): \(TerminalText.safe(failure)) "
                        + "(\(at ?? "")'share inbox remove \(id)' deletes it)")
            case .kept(let failure, _):
                let id = result.entry.id
                lines.append(
                    "  \(name): kept in the inbox as \(id): \(TerminalText.safe(failure)) "
                        + "(retry with 'share inbox import \(id)')")
            }
            for warning in result.warnings { lines.append("    warning: " + TerminalText.safe(warning)) }
        }
        return lines
    }

    /// `placed`, `imported` or `keptInInbox`: the codes the sender's report uses too (docs/JSON.md).
    static func outcomeName(_ outcome: ImportResult.Outcome) -> String {
        switch outcome {
        case .receiveFolder: "placed"
        case .imported: "imported"
        case .kept: "keptInInbox"
        }
    }

    /// The import part of an item's JSON.
    static func importMembers(_ result: ImportResult, path: String?) -> [(String, JSON)] {
        var failure: String?
        if case .kept(let text, _) = result.outcome { failure = text }
        return [
            ("path", path.map(JSON.string) ?? .null),
            ("type", .string(result.type)),
            ("outcome", .string(outcomeName(result.outcome))),
            (
                "application",
                result.application.map {
                    .object([
                        ("name", .string($0.name)), ("id", .string($0.id)), ("importer", .string($0.importerKind)),
                    ])
                } ?? .null
            ),
            ("reason", failure.map(JSON.string) ?? .null),
            ("inboxID", failure == nil ? .null : .string(result.entry.id)),
            ("mismatch", result.mismatch.map(mismatchJSON) ?? .null),
            ("warnings", .array(result.warnings.map(JSON.string))),
        ]
    }

    /// A document kept from its importer because its content lacks its type's signature.
    static func mismatchJSON(_ mismatch: ContentMismatch) -> JSON {
        var ext: JSON = .null
        if case .fileExtension(let text) = mismatch.claim { ext = .string(text) }
        return .object([
            ("claimedType", .string(mismatch.claimedType.rawValue)),
            ("extension", ext),
            ("expected", .string(mismatch.expected.format)),
            ("found", mismatch.found.map { .string($0.format) } ?? .null),
        ])
    }

    /// The JSON of one received item.
    static func itemJSON(_ item: ReceivedTransfer.Item) -> JSON {
        .object(
            [("name", .string(item.name)), ("bundle", .bool(item.isBundle))]
                + importMembers(item.result, path: item.path)
                + [("files", .int(Int64(item.files))), ("bytes", .int(Int64(clamping: item.bytes)))])
    }

    /// One line of `share inbox import --json`: `ok` is false when the document stays in the inbox
    /// (`reason` says why, and `error` is the message on stderr).
    static func resultJSON(_ result: ImportResult, inbox: Inbox) -> JSON {
        var failed = false
        if case .kept = result.outcome { failed = true }
        return .object(
            [("ok", .bool(!failed)), ("id", .string(result.entry.id)), ("name", .string(result.entry.name))]
                + importMembers(result, path: result.path(inbox: inbox))
                + (failed ? [("error", .string("\"\(result.entry.name)\" stays in the inbox"))] : []))
    }
}
