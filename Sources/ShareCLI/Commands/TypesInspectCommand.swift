import TypeRegistry

/// `share types inspect FILE`: what a manifest declares, as declared.
struct TypesInspectCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "inspect",
        abstract: "Show what a manifest declares, without registering it.",
        discussion: """
            Prints the manifest's declared types (exported, then imported) and document types exactly as \
            written, and every problem found: a manifest as it sits in an Xcode project is read with a \
            warning for each preprocessor line skipped and each build setting left unexpanded. With \
            --json the output has a fixed shape: {"declaredTypes": [...], "documentTypes": [...], \
            "warnings": [...]} (see docs/TYPES.md).
            """,
        arguments: [ArgumentSpec(name: "file", help: "An Info.plist-style manifest.")],
        options: [
            .value(
                "bundle-id", "identifier",
                help: "The application's identifier: fills in $(PRODUCT_BUNDLE_IDENTIFIER) as 'register' would."),
            .flag("json", help: "Print the declarations as JSON."),
        ]
    )

    let file: String
    let bundleIdentifier: String?
    let json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        file = parsed.positionals[0]
        bundleIdentifier = parsed.value("bundle-id")
        json = parsed.flag("json")
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let manifest: ApplicationManifest
        do {
            manifest = try ApplicationManifest.load(
                contentsOfFile: LocalTypes.absolute(file), bundleIdentifier: bundleIdentifier)
        } catch let error as ManifestError {
            throw CLIError(TerminalText.safe(error.description))
        } catch {
            throw CLIError(TerminalText.safe("\(error)"))
        }
        let inspection = manifest.inspection
        if json {
            context.console.line(inspection.jsonText())
            return ExitCode.success
        }
        var lines: [String] = []
        let name = [manifest.bundleName, manifest.bundleIdentifier.map { "(\($0))" }].compactMap { $0 }
        lines.append(
            name.isEmpty ? "An application manifest without a name" : TerminalText.safe(name.joined(separator: " ")))
        if inspection.declaredTypes.isEmpty { lines.append("  declares no types") }
        for type in inspection.declaredTypes {
            var parts = [type.declaration.rawValue]
            if !type.conformsTo.isEmpty { parts.append("conforms to " + type.conformsTo.joined(separator: ", ")) }
            if !type.extensions.isEmpty { parts.append(type.extensions.map { "." + $0 }.joined(separator: " ")) }
            if !type.mimeTypes.isEmpty { parts.append(type.mimeTypes.joined(separator: " ")) }
            if type.isPackage { parts.append("package") }
            lines.append(
                "  type \(TerminalText.safe(type.identifier)): \(TerminalText.safe(parts.joined(separator: "; ")))")
        }
        for document in inspection.documentTypes {
            let what = (document.contentTypes + document.extensions.map { "." + $0 } + document.mimeTypes).joined(
                separator: ", ")
            let rank = document.rank ?? "Default (not declared)"
            let role = document.role ?? "Viewer (not declared)"
            let package = document.isPackage == true ? ", package" : ""
            lines.append(
                "  imports \(TerminalText.safe(what.isEmpty ? "nothing" : what)): rank \(TerminalText.safe(rank)), role \(TerminalText.safe(role))\(package)"
            )
        }
        if let importer = manifest.importer {
            lines.append("  ShareImporter: \(TerminalText.safe(Self.describe(importer)))")
        } else {
            lines.append("  no ShareImporter")
        }
        for warning in inspection.warnings { lines.append("  warning: \(TerminalText.safe(warning))") }
        for line in lines { context.console.line(line) }
        return ExitCode.success
    }

    private static func describe(_ importer: ImporterDeclaration) -> String {
        var parts = ["Kind \(importer.kind ?? "(missing)")"]
        if let folder = importer.folder { parts.append("Folder \(folder)") }
        if let arguments = importer.arguments {
            parts.append("Arguments " + arguments.map(TypesText.quoted).joined(separator: " "))
        }
        if let text = importer.argumentsText { parts.append("Arguments \"\(text)\" (a string: refused)") }
        if let timeout = importer.timeoutSeconds { parts.append("Timeout \(timeout)") }
        return parts.joined(separator: ", ")
    }
}
