import ShareKit
import TypeRegistry

/// `share types list`: the registered applications (and, with --all, every known type).
struct TypesListCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "list",
        abstract: "List the registered applications and the types they declare.",
        discussion: """
            Shows each registered application with its importer, the types it declares and the document \
            types it imports. --all also lists every type the registry knows (built-in, shared-mime-info \
            and declared by applications) with its extensions, MIME types and origin.
            """,
        options: [
            .flag("all", help: "Also list every known type."),
            .flag("json", help: "Print the list as JSON."),
        ]
    )

    let all: Bool
    let json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        all = parsed.flag("all")
        json = parsed.flag("json")
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let console = context.console
        let registry: TypeRegistry
        let applications: [ApplicationRegistration]
        if all {
            registry = LocalTypes.registry(context)
            applications = registry.applications
        } else {
            let (loaded, problems) = LocalTypes.store(context).load()
            for problem in problems { console.warning(TerminalText.safe(problem)) }
            applications = loaded
            registry = TypeRegistry(includeBuiltinTypes: false)
        }
        if json {
            var members: [(String, JSON)] = [("applications", .array(applications.map(TypesText.applicationJSON)))]
            if all {
                members.append(
                    (
                        "types",
                        .array(
                            registry.allTypes.map { record in
                                .object([
                                    ("identifier", .string(record.identifier.rawValue)),
                                    ("conformsTo", .array(record.conformsTo.map { .string($0.rawValue) })),
                                    ("extensions", .array(record.filenameExtensions.map(JSON.string))),
                                    ("mimeTypes", .array(record.mimeTypes.map(JSON.string))),
                                    ("origin", .string(record.origin.description)),
                                ])
                            })
                    ))
            }
            console.line(JSON.object(members).pretty())
            return ExitCode.success
        }
        if applications.isEmpty {
            console.line("No applications are registered. Register one with 'share types register MANIFEST'.")
        } else {
            for (index, application) in applications.enumerated() {
                if index > 0 { console.line() }
                for line in TypesText.applicationLines(application, home: context.paths.home) { console.line(line) }
            }
        }
        if all {
            console.line()
            console.line("Types (\(registry.allTypes.count)):")
            for record in registry.allTypes {
                var tags = record.filenameExtensions.prefix(4).map { "." + $0 }
                tags += record.mimeTypes.prefix(2)
                let tagText = tags.isEmpty ? "" : "  " + tags.joined(separator: " ")
                console.line(
                    "  \(TerminalText.safe(record.identifier.rawValue))\(TerminalText.safe(tagText))  [\(TerminalText.safe(record.origin.description))]"
                )
            }
        }
        return ExitCode.success
    }
}
