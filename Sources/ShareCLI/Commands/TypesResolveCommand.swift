import Foundation
import ShareKit
import TypeRegistry

#if canImport(Glibc)
    import Glibc
#endif

/// `share types resolve FILE`: the type a received file would get and who would import it.
struct TypesResolveCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "resolve",
        abstract: "Show the type of a file and the application that would import it.",
        discussion: """
            Decides the file's type the way the receiver does: from its name, its first 4 KiB (a \
            folder: by its extension) and, with --declared, the type a sender declared. Prints the \
            type, its conformance chain, any warning (content that contradicts the name, a program in \
            disguise) and the handler that would import it, or why it would be placed in the receive \
            folder. Nothing is imported.
            """,
        arguments: [ArgumentSpec(name: "file", help: "A file or folder.")],
        options: [
            .value("declared", "type", help: "A type identifier or MIME type a sender declared for it."),
            .flag("explain", help: "Also print every step of the decision."),
            .flag("json", help: "Print the result as JSON."),
        ]
    )

    let file: String
    let declared: String?
    let explain: Bool
    let json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        file = parsed.positionals[0]
        declared = parsed.value("declared")
        explain = parsed.flag("explain")
        json = parsed.flag("json")
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let path = LocalTypes.absolute(file)
        var info = stat()
        guard lstat(path, &info) == 0 else {
            throw CLIError("cannot read '\(TerminalText.safe(file))': \(String(cString: strerror(errno)))")
        }
        let registry = LocalTypes.registry(context)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let plan = DocumentImporter.plan(forItemAt: path, name: name, declaredType: declared, registry: registry)
        let resolution = plan.resolution
        let chains = registry.conformanceChains(of: resolution.type)
        let home = context.paths.home
        if json {
            context.console.line(
                JSON.object([
                    ("file", .string(path)),
                    ("type", .string(resolution.type.rawValue)),
                    ("basis", .string(resolution.basis.rawValue)),
                    ("conformanceChains", .array(chains.map { .array($0.map { .string($0.rawValue) }) })),
                    ("declaredType", resolution.declaredType.map { .string($0.rawValue) } ?? .null),
                    ("contentType", resolution.contentType.map { .string($0.rawValue) } ?? .null),
                    ("contradiction", resolution.contradiction.map { .string($0.description) } ?? .null),
                    ("isResolved", .bool(resolution.isResolved)),
                    ("isSafe", .bool(resolution.isSafe)),
                    ("isExecutable", .bool(resolution.isExecutable)),
                    ("destination", .string(plan.handler == nil ? "receiveFolder" : "application")),
                    ("handler", plan.handler.map(TypesShowCommand.candidateJSON) ?? .null),
                    ("reason", plan.receiveFolderReason.map(JSON.string) ?? .null),
                    ("warnings", .array(plan.warnings.map(JSON.string))),
                    ("trace", .array(resolution.trace.map(JSON.string))),
                ]).pretty())
            return ExitCode.success
        }
        var lines = [
            "\(TerminalText.safe(name)): \(TerminalText.safe(resolution.type.rawValue)) (\(Self.basis(resolution.basis)))"
        ]
        func row(_ label: String, _ value: String) {
            lines.append(
                "  " + (label.isEmpty ? "" : label + ":").padding(toLength: 14, withPad: " ", startingAt: 0) + value)
        }
        for (index, chain) in chains.enumerated() {
            row(index == 0 ? "conforms to" : "", TerminalText.safe(chain.map(\.rawValue).joined(separator: " → ")))
        }
        if let handler = plan.handler {
            row(
                "imported by",
                "\"\(TerminalText.safe(handler.applicationName))\" (\(TerminalText.safe(handler.applicationID))): "
                    + "\(handler.rank.rawValue), \(TerminalText.safe(handler.match.description)); "
                    + TerminalText.safe(TypesText.importer(handler.importer, home: home)))
        } else {
            row("goes to", "the receive folder (\(TerminalText.safe(plan.receiveFolderReason ?? "no handler")))")
        }
        for warning in plan.warnings { lines.append("  warning: \(TerminalText.safe(warning))") }
        if explain {
            lines.append("  decision:")
            for step in resolution.trace { lines.append("    \(TerminalText.safe(step))") }
        }
        for line in lines { context.console.line(line) }
        return ExitCode.success
    }

    private static func basis(_ basis: Resolution.Basis) -> String {
        switch basis {
        case .directory: "a folder"
        case .fileName: "from the file name"
        case .content: "from the content"
        case .declaredType: "from the declared type"
        case .fallback: "nothing more specific is known"
        }
    }
}
