import Foundation
import ShareKit
import TypeRegistry

#if canImport(Glibc)
    import Glibc
#endif

/// `share types resolve FILE...`: the type each file would get and who would import it.
struct TypesResolveCommand: BlockingCommand {
    static let spec = CommandSpec(
        name: "resolve",
        abstract: "Show the type of files and the application that would import them.",
        discussion: """
            Decides each file's type the way the receiver does: from its name, its first 4 KiB (a \
            folder: by its extension) and, with --declared, the type a sender declared. Prints the \
            type, its MIME type and conformance chain, any warning (a program in disguise) and the \
            handler that would import it, or why it would be placed in the receive folder. Nothing is \
            imported. Give many files at once: the type database is loaded once. --mime prints one \
            line per file, 'FILE: MIME-TYPE', for scripts; --json one object per file (on one line \
            each when there are several files).
            """,
        arguments: [ArgumentSpec(name: "file", help: "Files or folders.", repeating: true)],
        options: [
            .value("declared", "type", help: "A type identifier or MIME type a sender declared for them."),
            .flag("mime", help: "Print only each file's MIME type, as 'FILE: MIME-TYPE'."),
            .flag("explain", help: "Also print every step of the decision."),
            .flag("json", help: "Print the result as JSON."),
        ]
    )

    let files: [String]
    let declared: String?
    let mime: Bool
    let explain: Bool
    let json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        files = parsed.positionals
        declared = parsed.value("declared")
        mime = parsed.flag("mime")
        explain = parsed.flag("explain")
        json = parsed.flag("json")
        if mime && (json || explain) {
            throw parsed.usageError("--mime prints only MIME types; it cannot be combined with --json or --explain")
        }
    }

    func runBlocking(_ context: CommandContext) throws(CLIError) -> Int32 {
        let failures = resolveAll(registry: LocalTypes.registry(context), context: context)
        if failures.isEmpty { return ExitCode.success }
        if files.count == 1 { throw CLIError(failures[0]) }
        for failure in failures { context.console.error(failure) }
        return ExitCode.failure
    }

    /// Resolves every file, printing as it goes (in batches); returns a message per unreadable file.
    private func resolveAll(registry: TypeRegistry, context: CommandContext) -> [String] {
        var failures: [String] = []
        var output = ""
        for file in files {
            let path = LocalTypes.absolute(file)
            var info = stat()
            guard lstat(path, &info) == 0 else {
                failures.append("cannot read '\(TerminalText.safe(file))': \(String(cString: strerror(errno)))")
                continue
            }
            // A link is typed by its own name and its target's content, as gio does.
            var target: String?
            if (info.st_mode & S_IFMT) == S_IFLNK {
                guard let resolved = realpath(path, nil) else {
                    failures.append("cannot read '\(TerminalText.safe(file))': \(String(cString: strerror(errno)))")
                    continue
                }
                target = String(cString: resolved)
                free(resolved)
            }
            let name = path.split(separator: "/").last.map(String.init) ?? path
            let plan = DocumentImporter.plan(
                forItemAt: target ?? path, name: name, declaredType: declared, registry: registry)
            if mime {
                output += "\(TerminalText.safe(file)): \(TerminalText.safe(plan.resolution.mimeType))\n"
            } else if json {
                output += jsonText(plan, path: path, registry: registry, environment: context.console.environment) + "\n"
            } else {
                output += humanText(
                    plan, name: name, registry: registry, home: context.paths.home, environment: context.console.environment)
            }
            if output.utf8.count >= 1 << 16 {
                context.console.out(output)
                output = ""
            }
        }
        if !output.isEmpty { context.console.out(output) }
        return failures
    }

    private func jsonText(_ plan: ImportPlan, path: String, registry: TypeRegistry, environment: [String: String]) -> String {
        let resolution = plan.resolution
        let chains = registry.conformanceChains(of: resolution.type)
        let value = JSON.object([
            ("file", .string(path)),
            ("type", .string(resolution.type.rawValue)),
            ("description", .string(LocalTypes.describe(resolution.type, registry: registry, environment: environment))),
            ("mimeType", .string(resolution.mimeType)),
            ("basis", .string(resolution.basis.rawValue)),
            ("conformanceChains", .array(chains.map { .array($0.map { .string($0.rawValue) }) })),
            ("declaredType", resolution.declaredType.map { .string($0.rawValue) } ?? .null),
            ("contentType", resolution.contentType.map { .string($0.rawValue) } ?? .null),
            ("contradiction", resolution.contradiction.map { .string($0.description) } ?? .null),
            ("isResolved", .bool(resolution.isResolved)),
            ("isSafe", .bool(resolution.isSafe)),
            ("isExecutable", .bool(resolution.isExecutable)),
            (
                "destination",
                .string(plan.handler != nil ? "application" : plan.inboxReason != nil ? "inbox" : "receiveFolder")
            ),
            ("handler", plan.handler.map { TypesShowCommand.candidateJSON($0) } ?? .null),
            ("reason", (plan.receiveFolderReason ?? plan.inboxReason).map(JSON.string) ?? .null),
            ("warnings", .array(plan.warnings.map(JSON.string))),
            ("trace", .array(resolution.trace.map(JSON.string))),
        ])
        return files.count == 1 ? value.pretty() : value.text()
    }

    private func humanText(
        _ plan: ImportPlan, name: String, registry: TypeRegistry, home: String, environment: [String: String]
    ) -> String {
        let resolution = plan.resolution
        let description = LocalTypes.describe(resolution.type, registry: registry, environment: environment)
        // An unknown type is named by what it was made from, not by its `dyn.` identifier.
        let shown = resolution.type.isDynamic ? description : resolution.type.rawValue
        var lines = ["\(TerminalText.safe(name)): \(TerminalText.safe(shown)) (\(Self.basis(resolution.basis)))"]
        func row(_ label: String, _ value: String) {
            lines.append(
                "  " + Self.padded(label.isEmpty ? "" : label + ":", to: 14) + value)
        }
        if resolution.type.isDynamic { row("identifier", TerminalText.safe(resolution.type.rawValue)) }
        row("MIME type", TerminalText.safe(resolution.mimeType))
        for (index, chain) in registry.conformanceChains(of: resolution.type).enumerated() {
            row(index == 0 ? "conforms to" : "", TerminalText.safe(chain.map(\.rawValue).joined(separator: " → ")))
        }
        if let handler = plan.handler {
            row(
                "imported by",
                "\"\(TerminalText.safe(handler.applicationName))\" (\(TerminalText.safe(handler.applicationID))): "
                    + "\(handler.rank.rawValue), \(TerminalText.safe(handler.match.description)); "
                    + TerminalText.safe(TypesText.importer(handler.importer, home: home)))
        } else if let reason = plan.inboxReason {
            row("stays in", "the inbox (\(TerminalText.safe(reason)))")
        } else {
            row("goes to", "the receive folder (\(TerminalText.safe(plan.receiveFolderReason ?? "no handler")))")
        }
        for warning in plan.warnings { lines.append("  warning: \(TerminalText.safe(warning))") }
        if explain {
            lines.append("  decision:")
            for step in resolution.trace { lines.append("    \(TerminalText.safe(step))") }
        }
        return lines.map { $0 + "\n" }.joined()
    }

    /// `text` followed by spaces up to `width` characters, in Swift alone: Foundation's `padding`
    /// goes through NSString, whose bridging a resolve of one file would otherwise set up.
    static func padded(_ text: String, to width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
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
