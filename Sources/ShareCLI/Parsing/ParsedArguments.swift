/// What the parser bound: option values, flags and positional arguments of one command.
struct ParsedArguments: Sendable {
    /// The command path (`["share", "send"]`).
    var commandPath: [String]
    /// Values of options that take one, by long name, in the order given.
    var values: [String: [String]] = [:]
    /// Flags that were given, by long name.
    var flags: Set<String> = []
    /// Positional arguments.
    var positionals: [String] = []

    /// Whether `--name` was given.
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The last value of `--name`, if given.
    func value(_ name: String) -> String? { values[name]?.last }

    /// Every value of `--name`.
    func all(_ name: String) -> [String] { values[name] ?? [] }

    /// The usage error for this command.
    func usageError(_ message: String) -> UsageError { UsageError(message: message, commandPath: commandPath) }

    /// The value of `--name` as a number in `range`, or a usage error.
    func integer(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw usageError("The value '\(text)' is invalid for '--\(name)'; expected a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// The value of `--name`, which must be one of `choices`.
    func choice(_ name: String, _ choices: [String]) throws(UsageError) -> String? {
        guard let text = value(name) else { return nil }
        guard choices.contains(text) else {
            throw usageError("The value '\(text)' is invalid for '--\(name)'; expected one of: \(choices.joined(separator: ", "))")
        }
        return text
    }
}
