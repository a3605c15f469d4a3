import ShareKit
import TypeRegistry

/// `share types register MANIFEST`: validates an application's manifest and stores its registration.
struct TypesRegisterCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "register",
        abstract: "Register an application from its Info.plist-style manifest.",
        discussion: """
            Reads the manifest's exported and imported types (UTExportedTypeDeclarations, \
            UTImportedTypeDeclarations), the document types it imports (CFBundleDocumentTypes, with \
            LSHandlerRank) and its ShareImporter (copy, move, unpack or command), checks them, and \
            stores the registration in $XDG_DATA_HOME/share/applications. Relative paths in the \
            ShareImporter start at the manifest's folder. Registering the same application again \
            replaces its registration; a running 'share receive' uses it from its next transfer. A \
            manifest as it sits in an Xcode project loads too: its preprocessor lines are skipped, and \
            when its CFBundleIdentifier is a build setting such as $(PRODUCT_BUNDLE_IDENTIFIER), give \
            the identifier with --bundle-id. Warnings name what the manifest got wrong, and any \
            extension another type claims too.
            """,
        arguments: [
            ArgumentSpec(name: "manifest", help: "The application's Info.plist (XML or binary property list).")
        ],
        options: [
            .value(
                "bundle-id", "identifier",
                help:
                    "The application's identifier, for a manifest whose CFBundleIdentifier is an Xcode build setting."),
            .flag("json", help: "Print the registration as JSON."),
        ]
    )

    let manifest: String
    let bundleIdentifier: String?
    let json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        manifest = parsed.positionals[0]
        bundleIdentifier = parsed.value("bundle-id")
        json = parsed.flag("json")
        if let bundleIdentifier, !TypeIdentifier(bundleIdentifier).isRecommendedForm {
            throw parsed.usageError(
                "'\(bundleIdentifier)' is not an application identifier (reverse DNS: letters, digits, '-' and '.', "
                    + "e.g. com.example.myapp)")
        }
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let console = context.console
        let (registration, replaced): (ApplicationRegistration, Bool)
        do {
            (registration, replaced) = try LocalTypes.store(context).register(
                manifestAt: LocalTypes.absolute(manifest), homeDirectory: context.paths.home,
                bundleIdentifier: bundleIdentifier)
        } catch {
            throw CLIError(TerminalText.safe(error.description))
        }
        // What the registry as a whole says about this application: collisions, competing owners.
        let registry = LocalTypes.registry(context)
        let warnings =
            registration.manifest.warnings.map(\.description)
            + registry.warnings.filter {
                $0.concerns(applicationID: registration.applicationID)
                    && [.extensionCollision, .competingExports, .conflictingOwners, .systemType].contains($0.kind)
            }.map(\.message)
        if json {
            console.line(
                JSON.object([
                    ("registered", TypesText.applicationJSON(registration)),
                    ("replaced", .bool(replaced)),
                    ("warnings", .array(warnings.map(JSON.string))),
                ]).pretty())
            return ExitCode.success
        }
        for warning in warnings { console.warning(TerminalText.safe(warning)) }
        console.line(
            "\(replaced ? "Updated" : "Registered") \"\(TerminalText.safe(registration.name))\" "
                + "(\(TerminalText.safe(registration.applicationID))).")
        for line in TypesText.applicationLines(registration, home: context.paths.home).dropFirst() {
            console.line(line)
        }
        return ExitCode.success
    }
}
