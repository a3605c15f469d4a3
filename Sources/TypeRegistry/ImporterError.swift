/// Why a manifest's `ShareImporter` cannot be used.
public enum ImporterError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `Kind` is missing.
    case missingKind
    /// `Kind` is not copy, move, unpack or command.
    case unknownKind(String)
    /// copy, move and unpack need a `Folder`.
    case missingFolder(kind: String)
    /// A path could not be resolved.
    case invalidPath(key: String, reason: String)
    /// `Arguments` is a single string: a shell command line.
    case shellCommandLine(String)
    /// `Arguments` runs a shell with `-c`.
    case shellInvocation(program: String)
    /// A command importer without `Arguments`.
    case missingArguments
    /// The program (first argument) is empty or not a usable path or program name.
    case invalidProgram(String)
    /// No argument contains the `%f` placeholder, so the command would never see the file.
    case missingFilePlaceholder
    /// An argument uses a placeholder other than `%f`, `%t` and `%%`.
    case unknownPlaceholder(String)
    /// `Timeout` is not a number of seconds in the allowed range.
    case invalidTimeout(String)

    /// A message for the user saying what is wrong and how to fix the manifest.
    public var description: String {
        switch self {
        case .missingKind:
            "ShareImporter.Kind is missing; write copy, move, unpack or command."
        case .unknownKind(let kind):
            "ShareImporter.Kind '\(kind)' is unknown; write copy, move, unpack or command."
        case .missingFolder(let kind):
            "ShareImporter.Folder is missing; a '\(kind)' importer needs the folder documents go to."
        case .invalidPath(let key, let reason):
            "ShareImporter.\(key): \(reason)."
        case .shellCommandLine(let text):
            "ShareImporter.Arguments is the string '\(text)'; commands run without a shell, so give an array: program first, then each argument, with %f for the file."
        case .shellInvocation(let program):
            "ShareImporter.Arguments runs '\(program) -c', a shell command line; run the program directly with an argument array instead."
        case .missingArguments:
            "ShareImporter.Arguments is missing; a command importer needs an array: program first, then arguments, with %f for the file."
        case .invalidProgram(let program):
            "ShareImporter.Arguments[0] '\(program)' is not a program; give an absolute path or a bare program name without spaces or shell characters."
        case .missingFilePlaceholder:
            "ShareImporter.Arguments never mentions %f, so the command would not receive the file; add %f where the file's path goes."
        case .unknownPlaceholder(let argument):
            "ShareImporter.Arguments '\(argument)' uses an unknown placeholder; use %f (file path), %t (type identifier) or %% (a percent sign)."
        case .invalidTimeout(let value):
            "ShareImporter.Timeout '\(value)' is not a number of seconds between 1 and \(Int(ImporterCommand.maximumTimeoutSeconds))."
        }
    }
}
