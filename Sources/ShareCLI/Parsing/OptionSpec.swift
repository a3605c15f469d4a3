/// One `--option` of a command: a flag, or an option that takes a value.
struct OptionSpec: Sendable {
    /// The long name, without dashes (`port` for `--port`).
    var long: String
    /// An optional one-letter short name (`h` for `-h`).
    var short: Character?
    /// The value's placeholder (`<port>`), or nil for a flag.
    var valueName: String?
    /// One line of help.
    var help: String
    /// Whether the option may be given more than once (values accumulate).
    var repeating = false

    static func flag(_ long: String, short: Character? = nil, help: String) -> OptionSpec {
        OptionSpec(long: long, short: short, valueName: nil, help: help)
    }

    static func value(_ long: String, _ valueName: String, help: String, repeating: Bool = false) -> OptionSpec {
        OptionSpec(long: long, short: nil, valueName: valueName, help: help, repeating: repeating)
    }

    /// `--port <port>`, `-h, --help`.
    var synopsis: String {
        var text = short.map { "-\($0), " } ?? ""
        text += "--\(long)"
        if let valueName { text += " <\(valueName)>" }
        return text
    }

    /// The form shown in a usage line.
    var usageForm: String {
        if let valueName { return "--\(long) <\(valueName)>" }
        return "--\(long)"
    }
}
