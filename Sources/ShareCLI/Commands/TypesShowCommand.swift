import Foundation
import ShareKit
import TypeRegistry

/// `share types show ID`: everything the registry knows about one type.
struct TypesShowCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "show",
        abstract: "Show a type: conformance, tags, declarations and handlers by rank.",
        discussion: """
            The type may be given as an identifier (public.png), a MIME type (image/png) or an \
            extension (.png). Shows its conformance chains, extensions and MIME types, who declares it, \
            and the registered applications that import it, best first, each with the rule that put the \
            one before it first (specific claims before wildcards; the most specific claimed type; then \
            Owner, Default, Alternate; then the application whose exported declaration is in use, the \
            earlier registration, the identifier), and the conflicts: ties, and an extension another \
            type claims too.
            """,
        arguments: [ArgumentSpec(name: "type", help: "A type identifier, MIME type or .extension.")],
        options: [.flag("json", help: "Print the type as JSON.")]
    )

    let query: String
    let json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        query = parsed.positionals[0]
        json = parsed.flag("json")
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let registry = LocalTypes.registry(context)
        guard let identifier = registry.type(matching: query), let explanation = registry.explain(identifier) else {
            throw CLIError(
                "no type '\(TerminalText.safe(query))' is known; give an identifier (public.png), a MIME type "
                    + "(image/png) or an extension (.png)")
        }
        let home = context.paths.home
        let record = explanation.record
        let ranking = explanation.handlers
        let described = LocalTypes.describe(record.identifier, registry: registry, environment: context.console.environment)
        let description = described == record.identifier.rawValue ? nil : described
        if json {
            context.console.line(
                JSON.object([
                    ("identifier", .string(record.identifier.rawValue)),
                    ("description", description.map(JSON.string) ?? .null),
                    ("conformsTo", .array(record.conformsTo.map { .string($0.rawValue) })),
                    ("supertypes", .array(explanation.supertypes.map { .string($0.rawValue) })),
                    (
                        "conformanceChains",
                        .array(explanation.conformanceChains.map { .array($0.map { .string($0.rawValue) }) })
                    ),
                    ("extensions", .array(record.filenameExtensions.map(JSON.string))),
                    ("mimeTypes", .array(record.mimeTypes.map(JSON.string))),
                    ("isPackage", .bool(record.isPackage)),
                    ("origin", .string(record.origin.description)),
                    (
                        "declaredBy",
                        .array(
                            explanation.declarers.map {
                                .object([("origin", .string($0.origin.description)), ("inUse", .bool($0.isInUse))])
                            })
                    ),
                    (
                        "handlers",
                        .array(
                            ranking.candidates.enumerated().map { index, candidate in
                                Self.candidateJSON(
                                    candidate, decidedBy: index == 0 ? nil : ranking.decisions[index])
                            })
                    ),
                    ("excluded", .array(ranking.excluded.map { Self.candidateJSON($0) })),
                    ("conflicts", .array(explanation.conflicts.map(JSON.string))),
                    ("handlerOrder", .string(HandlerRanking.orderingRule)),
                ]).pretty())
            return ExitCode.success
        }
        var lines = [TerminalText.safe(record.identifier.rawValue)]
        func row(_ label: String, _ value: String) {
            lines.append(
                "  " + (label.isEmpty ? "" : label + ":").padding(toLength: 14, withPad: " ", startingAt: 0) + value)
        }
        if let description { row("description", TerminalText.safe(description)) }
        for (index, chain) in explanation.conformanceChains.enumerated() {
            row(index == 0 ? "conforms to" : "", TerminalText.safe(chain.map(\.rawValue).joined(separator: " → ")))
        }
        row(
            "extensions",
            record.filenameExtensions.isEmpty
                ? "none" : TerminalText.safe(record.filenameExtensions.map { "." + $0 }.joined(separator: " ")))
        row(
            "MIME types", record.mimeTypes.isEmpty ? "none" : TerminalText.safe(record.mimeTypes.joined(separator: " "))
        )
        row("package", record.isPackage ? "yes" : "no")
        row("declared by", TerminalText.safe(explanation.declarers.map(\.description).joined(separator: ", ")))
        if ranking.candidates.isEmpty {
            row("handlers", "none; documents of this type are placed in the receive folder")
        } else {
            lines.append("  handlers, best first:")
            for (index, candidate) in ranking.candidates.enumerated() {
                lines.append(
                    "    \(index + 1). \"\(TerminalText.safe(candidate.applicationName))\" "
                        + "(\(TerminalText.safe(candidate.applicationID))): \(candidate.rank.rawValue), "
                        + "\(TerminalText.safe(candidate.match.description)); "
                        + TerminalText.safe(TypesText.importer(candidate.importer, home: home)))
                if index > 0 {
                    lines.append("       after \(index) by \(TerminalText.safe(ranking.decisions[index]))")
                }
            }
        }
        for candidate in ranking.excluded {
            lines.append(
                "  never handles: \"\(TerminalText.safe(candidate.applicationName))\" "
                    + "(\(TerminalText.safe(candidate.applicationID))): rank \(candidate.rank.rawValue), role \(candidate.claim.role.rawValue)"
            )
        }
        if !explanation.conflicts.isEmpty {
            lines.append("  conflicts:")
            for conflict in explanation.conflicts { lines.append("    " + TerminalText.safe(conflict)) }
        }
        for line in lines { context.console.line(line) }
        return ExitCode.success
    }

    /// A handler as JSON; `decidedBy` is the rule that put the handler before it first.
    static func candidateJSON(_ candidate: HandlerCandidate, decidedBy: String? = nil) -> JSON {
        var members: [(String, JSON)] = [
            ("applicationID", .string(candidate.applicationID)),
            ("name", .string(candidate.applicationName)),
            ("rank", .string(candidate.rank.rawValue)),
            ("role", .string(candidate.claim.role.rawValue)),
            ("match", .string(candidate.match.description)),
            ("exportsType", .bool(candidate.exportsType)),
            ("declarationInUse", .bool(candidate.declaresType)),
            ("importer", TypesText.importerJSON(candidate.importer)),
        ]
        if let decidedBy { members.append(("decidedBy", .string(decidedBy))) }
        return .object(members)
    }
}
