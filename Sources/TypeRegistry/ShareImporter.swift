/// How an application imports a received document: the validated `ShareImporter` dictionary.
///
/// | `Kind` | what happens | keys |
/// |---|---|---|
/// | `copy` | the file is copied into `Folder` | `Folder` |
/// | `move` | the file is moved into `Folder` | `Folder` |
/// | `unpack` | a bundle is unpacked into the app's document store `Folder` under the next free name | `Folder` |
/// | `command` | `Arguments` is run without a shell, `%f` replaced by the file's path, stopped after `Timeout` seconds (default 60) | `Arguments`, `Timeout`, optional `Folder`: its store (working directory, the only folder ShareKit lets it write) |
///
/// Relative paths are resolved against the manifest's directory, `~` against the home
/// directory (see ``ImporterPaths``). Several applications may share one folder (an app group).
/// Executing importers is ShareKit's job; this type only describes them.
public enum ShareImporter: Hashable, Sendable, Codable {
    /// Copy the file into the folder.
    case copy(folder: String)
    /// Move the file into the folder.
    case move(folder: String)
    /// Unpack the bundle into the folder (the app's document store) under the next free name.
    case unpack(folder: String)
    /// Run a command.
    case command(ImporterCommand)

    private static let shells: Set<String> = [
        "sh", "bash", "dash", "zsh", "ksh", "mksh", "csh", "tcsh", "fish", "ash", "busybox",
    ]
    private static let shellCharacters = Set("|&;<>()$`\\\"'*?[]#=%{}!")

    /// Validates a manifest's importer declaration and resolves its paths.
    /// - Parameters:
    ///   - declaration: the `ShareImporter` dictionary as parsed.
    ///   - paths: where relative and `~` paths point.
    /// - Throws: ``ImporterError`` naming the first problem found.
    public init(validating declaration: ImporterDeclaration, paths: ImporterPaths) throws {
        guard let kindText = declaration.kind, !kindText.isEmpty else { throw ImporterError.missingKind }
        let kind = kindText.lowercased()
        var folder: String?
        if let folderText = declaration.folder {
            let resolved = paths.resolve(folderText)
            guard let path = resolved.path else {
                throw ImporterError.invalidPath(key: "Folder", reason: resolved.problem ?? "unusable path")
            }
            folder = path
        }
        switch kind {
        case "copy", "move", "unpack":
            guard let folder else { throw ImporterError.missingFolder(kind: kind) }
            self =
                kind == "copy"
                ? .copy(folder: folder) : kind == "move" ? .move(folder: folder) : .unpack(folder: folder)
        case "command":
            self = .command(try Self.command(declaration, workingDirectory: folder, paths: paths))
        default:
            throw ImporterError.unknownKind(kindText)
        }
    }

    private static func command(_ declaration: ImporterDeclaration, workingDirectory: String?, paths: ImporterPaths)
        throws -> ImporterCommand
    {
        if let text = declaration.argumentsText { throw ImporterError.shellCommandLine(text) }
        guard let arguments = declaration.arguments, let first = arguments.first else {
            throw ImporterError.missingArguments
        }
        let programText = first.trimmingTypeWhitespace()
        guard !programText.isEmpty else { throw ImporterError.invalidProgram(first) }
        if programText.unicodeScalars.contains(where: { $0.properties.isWhitespace }) {
            throw ImporterError.shellCommandLine(programText)
        }
        let checked = programText.hasPrefix("~") ? String(programText.dropFirst()) : programText
        if checked.contains(where: { shellCharacters.contains($0) }) || checked.contains("\0") {
            throw ImporterError.invalidProgram(programText)
        }
        let program: String
        if programText.contains("/") || programText.hasPrefix("~") {
            let resolved = paths.resolve(programText)
            guard let path = resolved.path, path != "/" else {
                throw ImporterError.invalidPath(key: "Arguments[0]", reason: resolved.problem ?? "not a program")
            }
            program = path
        } else {
            guard programText != "." && programText != ".." else { throw ImporterError.invalidProgram(programText) }
            program = programText
        }
        let rest = Array(arguments.dropFirst())
        let name = program.split(separator: "/").last.map(String.init) ?? program
        if shells.contains(name), rest.contains(where: Self.isShellCommandFlag) {
            throw ImporterError.shellInvocation(program: programText)
        }
        var hasFile = false
        for argument in rest {
            guard let found = ImporterCommand.placeholders(in: argument) else {
                throw ImporterError.unknownPlaceholder(argument)
            }
            if found.contains("f") { hasFile = true }
        }
        guard hasFile else { throw ImporterError.missingFilePlaceholder }
        let seconds: Double
        if let text = declaration.timeoutText {
            throw ImporterError.invalidTimeout(text)
        } else if let value = declaration.timeoutSeconds {
            guard value.isFinite, value >= 1, value <= ImporterCommand.maximumTimeoutSeconds else {
                throw ImporterError.invalidTimeout(String(value))
            }
            seconds = value
        } else {
            seconds = ImporterCommand.defaultTimeoutSeconds
        }
        return ImporterCommand(
            program: program, arguments: rest, timeout: .milliseconds(Int64((seconds * 1000).rounded())),
            workingDirectory: workingDirectory)
    }

    /// `-c`, `-ec`, `-lc`, `--command`: the next argument is shell source.
    private static func isShellCommandFlag(_ argument: String) -> Bool {
        if argument == "--command" || argument == "-c" { return true }
        guard argument.hasPrefix("-"), !argument.hasPrefix("--"), argument.count > 1 else { return false }
        return argument.dropFirst().allSatisfy(\.isLetter) && argument.contains("c")
    }

    /// `copy`, `move`, `unpack` or `command`.
    public var kind: String {
        switch self {
        case .copy: "copy"
        case .move: "move"
        case .unpack: "unpack"
        case .command: "command"
        }
    }

    /// The destination folder (or, for a command, its store and working directory), if any.
    public var folder: String? {
        switch self {
        case .copy(let folder), .move(let folder), .unpack(let folder): folder
        case .command(let command): command.workingDirectory
        }
    }
}
