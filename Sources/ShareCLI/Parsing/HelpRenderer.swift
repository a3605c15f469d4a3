import Foundation

/// Renders help and usage text from the command specs.
enum HelpRenderer {
    /// The column where descriptions start.
    static let descriptionColumn = 26

    /// The full help of the command at the end of `path`, wrapped to `width` columns.
    static func help(for path: [CommandSpec], width: Int) -> String {
        let spec = path.last!
        let names = path.map(\.name).joined(separator: " ")
        var out = "OVERVIEW: \(spec.abstract)\n"
        if !spec.discussion.isEmpty {
            let paragraphs = spec.discussion.components(separatedBy: "\n\n").map {
                wrap($0.replacingOccurrences(of: "\n", with: " "), width: width, indent: 0)
            }
            out += "\n" + paragraphs.joined(separator: "\n\n") + "\n"
        }
        out += "\nUSAGE: \(usageLine(spec, names: names, width: width))\n"
        if !spec.arguments.isEmpty {
            out += "\nARGUMENTS:\n"
            for argument in spec.arguments {
                out += row(argument.usageForm, argument.help, width: width)
            }
        }
        out += "\nOPTIONS:\n"
        for option in spec.allOptions {
            out += row(option.synopsis, option.help, width: width)
        }
        if path.count == 1 {
            out += row("--version", "Show the version.", width: width)
        }
        if !spec.visibleSubcommands.isEmpty {
            out += "\nSUBCOMMANDS:\n"
            for sub in spec.visibleSubcommands {
                out += row(sub.name, sub.abstract, width: width)
            }
        }
        for (title, lines) in spec.extraSections {
            out += "\n\(title):\n"
            for line in lines { out += "  \(line)\n" }
        }
        if !spec.subcommands.isEmpty {
            out += "\n  See '\(path.first!.name) help <subcommand>' for detailed help.\n"
        }
        return out
    }

    /// The text printed for a usage error (to stderr).
    static func usageError(_ error: UsageError, root: CommandSpec) -> String {
        var path = [root]
        for name in error.commandPath.dropFirst() {
            if let next = path.last!.subcommand(named: name) { path.append(next) }
        }
        let names = path.map(\.name).joined(separator: " ")
        let usage = usageLine(path.last!, names: names, width: 80)
        return "Error: \(error.message)\nUsage: \(usage)\n  See '\(names) --help' for more information.\n"
    }

    /// `share send <path> ... --to <peer> [--json]`, or with `[<options>]` in place of the
    /// optional options when the full line would not fit.
    static func usageLine(_ spec: CommandSpec, names: String, width: Int) -> String {
        let full = "\(names) \(spec.usageTail)"
        if full.count + 7 <= width || spec.usageOverride != nil { return full }
        let arguments = spec.arguments.map(\.usageForm)
        return ([names] + arguments + ["[<options>]"]).joined(separator: " ")
    }

    private static func row(_ label: String, _ text: String, width: Int) -> String {
        let lead = "  " + label
        let body = wrap(text, width: width, indent: descriptionColumn)
        let trimmedBody = String(body.dropFirst(descriptionColumn))
        if lead.count < descriptionColumn - 1 {
            return lead + String(repeating: " ", count: descriptionColumn - lead.count) + trimmedBody + "\n"
        }
        return lead + "\n" + body + "\n"
    }

    /// Wraps `text` at word boundaries to `width`, every line indented by `indent` spaces.
    static func wrap(_ text: String, width: Int, indent: Int) -> String {
        let room = max(20, width - indent)
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= room {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        let pad = String(repeating: " ", count: indent)
        return lines.map { pad + $0 }.joined(separator: "\n")
    }
}
