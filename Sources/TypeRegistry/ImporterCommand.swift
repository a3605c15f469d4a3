/// A validated `command` importer: a program run directly, without a shell, with an argument list.
///
/// Placeholders in the arguments: `%f` is the received file's absolute path, `%t` its type
/// identifier, `%%` a percent sign. They may sit inside a longer argument (`--file=%f`). Pass
/// an absolute path for `%f`: it then starts with `/` and cannot be mistaken for an option.
/// Running the command is the caller's business (ShareKit); this only describes it.
public struct ImporterCommand: Hashable, Sendable, Codable {
    /// The timeout used when the manifest gives none, in seconds.
    public static let defaultTimeoutSeconds: Double = 60
    /// The longest timeout a manifest may ask for, in seconds.
    public static let maximumTimeoutSeconds: Double = 3600

    /// An absolute path, or a bare program name to look up in `PATH`.
    public let program: String
    /// The arguments after the program, with placeholders.
    public let arguments: [String]
    /// How long the command may run before it is stopped.
    public let timeout: Duration
    /// The store (`Folder`), if the manifest gives one: the working directory, and the only folder
    /// ShareKit lets the command write besides its scratch `TMPDIR` (it runs confined by Landlock).
    public let workingDirectory: String?

    /// Creates a command; prefer ``ShareImporter/init(validating:paths:)``, which validates.
    public init(program: String, arguments: [String], timeout: Duration, workingDirectory: String? = nil) {
        self.program = program
        self.arguments = arguments
        self.timeout = timeout
        self.workingDirectory = workingDirectory
    }

    /// Whether ``program`` is a bare name that must be looked up in `PATH`.
    public var searchesPath: Bool { !program.hasPrefix("/") }

    /// The argument vector to execute, placeholders filled in; the program is element 0.
    /// - Parameters:
    ///   - filePath: the absolute path of the file to import, for `%f`.
    ///   - type: the file's resolved type, for `%t`.
    public func argv(filePath: String, type: TypeIdentifier) -> [String] {
        [program] + arguments.map { Self.substitute($0, filePath: filePath, type: type.rawValue) }
    }

    static func substitute(_ argument: String, filePath: String, type: String) -> String {
        guard argument.contains("%") else { return argument }
        var out = ""
        var iterator = argument.makeIterator()
        while let character = iterator.next() {
            guard character == "%" else {
                out.append(character)
                continue
            }
            switch iterator.next() {
            case "f": out += filePath
            case "t": out += type
            case "%": out += "%"
            case let other?: out += "%" + String(other)
            case nil: out += "%"
            }
        }
        return out
    }

    /// The placeholders an argument uses, or `nil` if it uses an unknown one.
    static func placeholders(in argument: String) -> Set<Character>? {
        var found: Set<Character> = []
        var iterator = argument.makeIterator()
        while let character = iterator.next() {
            guard character == "%" else { continue }
            guard let next = iterator.next(), next == "f" || next == "t" || next == "%" else { return nil }
            found.insert(next)
        }
        return found
    }
}
