/// One positional argument of a command.
struct ArgumentSpec: Sendable {
    /// The placeholder (`path` for `<path>`).
    var name: String
    /// One line of help.
    var help: String
    /// Whether it takes one or more values (`<path> ...`).
    var repeating = false
    /// Whether it may be left out.
    var optional = false

    var usageForm: String {
        var text = "<\(name)>"
        if repeating { text += " ..." }
        return optional ? "[\(text)]" : text
    }
}
