import Foundation

/// Renders man pages (roff, man(7) macros) from the command specs that drive `--help`: share(1),
/// and one page per command, share-COMMAND(1), with its subcommands as subsections.
/// `make install` writes them with `share __man-pages DIR`.
enum ManPageRenderer {
    /// Every page: its file name (`share-send.1`) and text.
    static func pages(root: CommandSpec, version: String) -> [(name: String, text: String)] {
        [("share.1", rootPage(root, version: version))]
            + root.visibleSubcommands.map { command in
                ("share-\(command.name).1", commandPage(command, root: root, version: version))
            }
    }

    /// share(1): what share is, its commands, exit status, files, environment.
    static func rootPage(_ root: CommandSpec, version: String) -> String {
        var out = header("SHARE", version: version)
        out += ".SH NAME\nshare \\- \(escape(root.abstract))\n"
        out += ".SH SYNOPSIS\n.B share\n\\fI<command>\\fR [\\fIoptions\\fR]\n"
        out += ".br\n.B share help\n[\\fIcommand\\fR]\n"
        out += ".SH DESCRIPTION\n" + paragraphs(root.discussion)
        out += ".SH COMMANDS\n"
        for command in root.visibleSubcommands {
            out += ".TP\n\\fBshare\\-\(escape(command.name))\\fR(1)\n\(escape(command.abstract))\n"
        }
        out +=
            ".SH OPTIONS\n.TP\n.BR \\-h \", \" \\-\\-help\nShow help information.\n.TP\n.B \\-\\-version\nShow the version.\n"
        for (title, lines) in root.extraSections where title == "EXIT CODES" {
            out += ".SH EXIT STATUS\n"
            for line in lines {
                let parts = line.split(separator: " ", maxSplits: 1)
                out +=
                    ".TP\n.B \(escape(String(parts[0])))\n\(escape(parts.count > 1 ? parts[1].trimmingLeadingSpaces() : ""))\n"
            }
        }
        out += files + environment
        out += ".SH SEE ALSO\n"
        out +=
            (root.visibleSubcommands.map { "\\fBshare\\-\(escape($0.name))\\fR(1)" } + [
                "\\fBshare\\-team\\-ca\\fR(1)", "\\fBavahi\\-daemon\\fR(8)",
            ])
            .joined(separator: ",\n") + "\n"
        return out
    }

    /// share-COMMAND(1): the command, and each of its subcommands in a subsection.
    static func commandPage(_ command: CommandSpec, root: CommandSpec, version: String) -> String {
        let title = "SHARE-" + command.name.uppercased()
        var out = header(title, version: version)
        out += ".SH NAME\nshare\\-\(escape(command.name)) \\- \(escape(command.abstract))\n"
        out += ".SH SYNOPSIS\n"
        let leaves = leafPaths(command, prefix: ["share"])
        out += leaves.map { path, spec in synopsis(path, spec) }.joined(separator: ".br\n")
        if !command.discussion.isEmpty { out += ".SH DESCRIPTION\n" + paragraphs(command.discussion) }
        if command.runnable { out += details(command) }
        for (path, spec) in leaves where spec.name != command.name || !command.runnable {
            out += ".SS \"\(escape(path.joined(separator: " ")))\"\n"
            out += escape(spec.abstract) + "\n"
            if !spec.discussion.isEmpty { out += paragraphs(spec.discussion) }
            out += details(spec, subsection: true)
        }
        for (title, lines) in command.extraSections {
            out += ".SH \(escape(title))\n"
            for line in lines {
                let parts = line.split(separator: " ", maxSplits: 1)
                out +=
                    ".TP\n.B \(escape(String(parts[0])))\n\(escape(parts.count > 1 ? parts[1].trimmingLeadingSpaces() : ""))\n"
            }
        }
        if command.name == "receive" || command.name == "config" { out += files }
        out += ".SH SEE ALSO\n\\fBshare\\fR(1)"
        if command.name == "receive" {
            out += ",\n\\fBshare\\-config\\fR(1),\n\\fBsystemctl\\fR(1),\n\\fBjournalctl\\fR(1)"
        }
        if command.name == "config" { out += ",\n\\fBshare\\-receive\\fR(1)" }
        if command.name == "identity" || command.name == "trust" { out += ",\n\\fBshare\\-team\\-ca\\fR(1)" }
        return out + "\n"
    }

    /// Every runnable command under `spec` with its path (`share trust ca add`).
    private static func leafPaths(_ spec: CommandSpec, prefix: [String]) -> [([String], CommandSpec)] {
        let path = prefix + [spec.name]
        var leaves: [([String], CommandSpec)] = spec.runnable ? [(path, spec)] : []
        for sub in spec.visibleSubcommands { leaves += leafPaths(sub, prefix: path) }
        return leaves
    }

    /// `.B share send` and the usage after it.
    private static func synopsis(_ path: [String], _ spec: CommandSpec) -> String {
        ".B \(escape(path.joined(separator: " ")))\n" + (spec.usageTail.isEmpty ? "" : "\(usage(spec.usageTail))\n")
    }

    /// Usage words: placeholders in italics, options in bold.
    private static func usage(_ text: String) -> String {
        text.split(separator: " ").map { word in
            var word = String(word)
            var lead = ""
            var trail = ""
            while let first = word.first, "[(".contains(first) {
                lead.append(first)
                word.removeFirst()
            }
            while let last = word.last, "])".contains(last) {
                trail = String(last) + trail
                word.removeLast()
            }
            let styled: String
            if word.hasPrefix("<") {
                styled = "\\fI\(escape(word))\\fR"
            } else if word.hasPrefix("-") {
                styled = "\\fB\(escape(word))\\fR"
            } else {
                styled = escape(word)
            }
            return escape(lead) + styled + escape(trail)
        }.joined(separator: " ")
    }

    /// ARGUMENTS and OPTIONS of one command.
    private static func details(_ spec: CommandSpec, subsection: Bool = false) -> String {
        var out = ""
        if !spec.arguments.isEmpty {
            out += subsection ? ".PP\nArguments:\n" : ".SH ARGUMENTS\n"
            for argument in spec.arguments {
                out += ".TP\n\\fI\(escape(argument.usageForm))\\fR\n\(escape(argument.help))\n"
            }
        }
        out += subsection ? ".PP\nOptions:\n" : ".SH OPTIONS\n"
        for option in spec.allOptions {
            var label = option.short.map { "\\fB\\-\(escape(String($0)))\\fR, " } ?? ""
            label += "\\fB\\-\\-\(escape(option.long))\\fR"
            if let valueName = option.valueName { label += " \\fI<\(escape(valueName))>\\fR" }
            out += ".TP\n\(label)\n\(escape(option.help))\n"
        }
        return out
    }

    private static func header(_ title: String, version: String) -> String {
        ".\\\" Generated from share's command specifications (ShareCLI); do not edit.\n"
            + ".TH \"\(title)\" \"1\" \"\" \"share \(escape(version))\" \"share manual\"\n.nh\n.ad l\n"
    }

    /// Discussion paragraphs (blank-line separated) as `.PP` paragraphs.
    private static func paragraphs(_ text: String) -> String {
        text.components(separatedBy: "\n\n").map { ".PP\n" + escape($0.replacingNewlines()) + "\n" }.joined()
    }

    /// Text made safe for roff: backslashes and hyphens escaped; a line never starts with a
    /// control character.
    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            default: out.append(character)
            }
        }
        if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
        return out
    }

    private static let files = """
        .SH FILES
        .TP
        .I $XDG_CONFIG_HOME/share/settings.json
        The settings (\\fBshare\\-config\\fR(1)). With \\fIidentity.key\\fR, \\fIidentity.crt\\fR, \\fItrust.json\\fR \
        and \\fItrusted\\-cas/\\fR in the same folder: \\fI$SHARE_CONFIG_DIR\\fR, else \\fI$XDG_CONFIG_HOME/share\\fR, \
        else \\fI~/.config/share\\fR.
        .TP
        .I $XDG_DATA_HOME/share/Inbox
        Received documents until they are imported (default \\fI~/.local/share/share/Inbox\\fR).
        .TP
        .I $XDG_STATE_HOME/share/history.jsonl
        The transfer history (\\fBshare\\-history\\fR(1); default \\fI~/.local/state/share\\fR).
        .TP
        .I share\\-receive.service
        The systemd user unit that runs \\fBshare receive \\-\\-service\\fR: \
        \\fBsystemctl \\-\\-user enable \\-\\-now share\\-receive\\fR.

        """

    private static let environment = """
        .SH ENVIRONMENT
        .TP
        .B SHARE_CONFIG_DIR
        The config folder, instead of \\fI$XDG_CONFIG_HOME/share\\fR.
        .TP
        .BR XDG_CONFIG_HOME ", " XDG_DATA_HOME ", " XDG_STATE_HOME ", " XDG_DOWNLOAD_DIR
        Where settings, received data, the history and the default receive folder are.
        .TP
        .B DBUS_SESSION_BUS_ADDRESS
        The session bus for desktop notifications (else \\fI$XDG_RUNTIME_DIR/bus\\fR).
        .TP
        .B TMPDIR
        Where \\fBshare send \\-\\fR spools standard input.
        .TP
        .B COLUMNS
        The width help is wrapped to.

        """
}

extension StringProtocol {
    /// The text without its leading spaces.
    func trimmingLeadingSpaces() -> String { String(drop { $0 == " " }) }

    /// The text with newlines as spaces.
    func replacingNewlines() -> String { String(map { $0 == "\n" ? " " : $0 }) }
}
