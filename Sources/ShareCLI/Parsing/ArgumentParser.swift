/// What the command line asks for.
enum Invocation: Sendable {
    /// Print the help of the command at this path.
    case help([CommandSpec])
    /// Print the version.
    case version
    /// Run the command at the end of this path with these arguments.
    case run([CommandSpec], ParsedArguments)
}

/// Parses a command line against the command table: resolves the subcommand path, then binds
/// options and positional arguments. Pure: no I/O, so every rule is unit-testable.
enum ArgumentParser {
    static func parse(_ arguments: [String], root: CommandSpec) -> Result<Invocation, UsageError> {
        var path = [root]
        var tokens = Array(arguments.dropFirst())[...]

        // `share help [subcommand ...]`.
        if tokens.first == "help" {
            tokens.removeFirst()
            for word in tokens {
                // `share help help` explains `help`; `share help send --help` is `share help send`.
                if word == "help" && path.count == 1 { return .success(.help([root, CommandSpec.help])) }
                if word == "--help" || word == "-h" { break }
                guard let next = path.last!.subcommand(named: word) else {
                    return .failure(unknownSubcommand(word, in: path))
                }
                path.append(next)
            }
            return .success(.help(path))
        }
        while let word = tokens.first, !word.hasPrefix("-"), let next = path.last!.subcommand(named: word) {
            path.append(next)
            tokens.removeFirst()
        }
        let spec = path.last!
        let names = path.map(\.name)
        var parsed = ParsedArguments(commandPath: names)
        var optionsEnded = false
        while let token = tokens.popFirst() {
            if optionsEnded || token == "-" || !token.hasPrefix("-") {
                parsed.positionals.append(token)
                continue
            }
            if token == "--" {
                optionsEnded = true
                continue
            }
            if token == "--version" && path.count == 1 { return .success(.version) }
            let option: OptionSpec
            var inlineValue: String?
            if token.hasPrefix("--") {
                var name = String(token.dropFirst(2))
                if let equals = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                guard let found = spec.allOptions.first(where: { $0.long == name }) else {
                    return .failure(unknownOption("--" + name, spec: spec, path: names))
                }
                option = found
            } else {
                let letters = token.dropFirst()
                guard letters.count == 1, let found = spec.allOptions.first(where: { $0.short == letters.first }) else {
                    return .failure(unknownOption(token, spec: spec, path: names))
                }
                option = found
            }
            if option.long == "help" { return .success(.help(path)) }
            if option.valueName == nil {
                if inlineValue != nil {
                    return .failure(UsageError(message: "The option '--\(option.long)' takes no value", commandPath: names))
                }
                parsed.flags.insert(option.long)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if let next = tokens.first, !next.hasPrefix("-") || next == "-" || Self.isNegativeNumber(next) {
                value = next
                tokens.removeFirst()
            } else {
                return .failure(UsageError(message: "Missing value for '\(option.usageForm)'", commandPath: names))
            }
            parsed.values[option.long, default: []].append(value)
        }

        if !spec.runnable {
            if let first = parsed.positionals.first { return .failure(unknownSubcommand(first, in: path)) }
            return .success(.help(path))
        }
        if let problem = bindPositionals(parsed.positionals, spec: spec) {
            return .failure(UsageError(message: problem, commandPath: names))
        }
        return .success(.run(path, parsed))
    }

    /// `-1`, `-0.5`: a value (which the option then judges), not an option.
    static func isNegativeNumber(_ token: String) -> Bool {
        token.count > 1 && token.dropFirst().allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") }
    }

    /// Checks the positional count against the spec; returns the problem, if any.
    private static func bindPositionals(_ values: [String], spec: CommandSpec) -> String? {
        let required = spec.arguments.filter { !$0.optional }
        let repeating = spec.arguments.contains { $0.repeating }
        if values.count < required.count {
            return "Missing expected argument '\(required[values.count].usageForm)'"
        }
        if !repeating && values.count > spec.arguments.count {
            return "Unexpected argument '\(values[spec.arguments.count])'"
        }
        return nil
    }

    private static func unknownOption(_ token: String, spec: CommandSpec, path: [String]) -> UsageError {
        var message = "Unknown option '\(token)'"
        if token.hasPrefix("--"),
            let suggestion = EditDistance.suggestion(for: String(token.dropFirst(2)), among: spec.allOptions.map(\.long))
        {
            message += ". Did you mean '--\(suggestion)'?"
        }
        return UsageError(message: message, commandPath: path)
    }

    private static func unknownSubcommand(_ word: String, in path: [CommandSpec]) -> UsageError {
        let spec = path.last!
        var message = "Unknown subcommand '\(word)'"
        if let suggestion = EditDistance.suggestion(for: word, among: spec.visibleSubcommands.map(\.name)) {
            message += ". Did you mean '\(suggestion)'?"
        } else if !spec.visibleSubcommands.isEmpty {
            message += "; expected one of: \(spec.visibleSubcommands.map(\.name).joined(separator: ", "))"
        }
        return UsageError(message: message, commandPath: path.map(\.name))
    }
}
