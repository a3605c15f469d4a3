/// The words after a control command: `key=value` options, bare flags and positional values.
struct ControlArguments {
    var options: [String: String] = [:]
    var flags: Set<String> = []
    var positional: [String] = []

    init(_ words: [String]) throws {
        for word in words {
            if let equals = word.firstIndex(of: "=") {
                options[String(word[..<equals])] = String(word[word.index(after: equals)...])
            } else if word.first?.isLetter == true && word != "off" {
                flags.insert(word)
            } else {
                positional.append(word)
            }
        }
    }

    /// Refuses options, flags or positional values the command does not take.
    func allow(_ keys: Set<String>, flags allowedFlags: Set<String> = [], positional count: Int = 0) throws {
        if let unknown = options.keys.first(where: { !keys.contains($0) }) {
            throw ControlError("unknown option '\(unknown)'")
        }
        if let unknown = flags.first(where: { !allowedFlags.contains($0) }) {
            throw ControlError("unknown word '\(unknown)'")
        }
        guard positional.count == count else {
            throw ControlError("expected \(count) value(s), got \(positional.count)")
        }
    }

    func int(_ key: String) throws -> Int? {
        guard let text = options[key] else { return nil }
        guard let value = Int(text), value >= 0 else {
            throw ControlError("\(key) wants a whole number, not '\(text)'")
        }
        return value
    }

    func duration(_ key: String) throws -> Duration? {
        guard let text = options[key] else { return nil }
        guard let seconds = Double(text), seconds >= 0 else {
            throw ControlError("\(key) wants seconds, not '\(text)'")
        }
        return .seconds(seconds)
    }

    func direction() throws -> FaultProxy.Direction? {
        switch options["dir"] {
        case nil: nil
        case "up": .upstream
        case "down": .downstream
        case let other?: throw ControlError("dir wants up or down, not '\(other)'")
        }
    }
}

/// A mistake in a control line.
struct ControlError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) { self.description = description }
}
