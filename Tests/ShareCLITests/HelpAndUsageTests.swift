import ShareTestSupport
import Testing

/// The CLI's help and usage errors, compared as exact text against the built binary.
@Suite struct HelpAndUsageTests {
    let env = ShareBinary.environment(home: "/tmp", config: "/tmp/share-tests-cli-config")

    @Test func rootHelpIsPrintedToStdoutForEveryForm() {
        for arguments in [["--help"], ["-h"], ["help"], []] {
            let result = ShareBinary.run(arguments, environment: env)
            #expect(result.status == 0, "share \(arguments)")
            #expect(result.stdout == GoldenHelp.root, "share \(arguments)")
            #expect(result.stderr == "", "share \(arguments)")
        }
    }

    @Test func subcommandHelpIsTheSameThreeWays() {
        for command in ["send", "receive", "peers", "identity", "trust", "trust verify"] {
            let words = command.split(separator: " ").map(String.init)
            let forms = [words + ["--help"], words + ["-h"], ["help"] + words].map { ShareBinary.run($0, environment: env) }
            #expect(forms.allSatisfy { $0.status == 0 && $0.stderr.isEmpty }, "\(command)")
            #expect(forms[0].stdout == forms[1].stdout && forms[1].stdout == forms[2].stdout, "\(command)")
            #expect(forms[0].stdout.hasPrefix("OVERVIEW: "), "\(command)")
        }
        #expect(ShareBinary.run(["send", "--help"], environment: env).stdout == GoldenHelp.send)
        // --help wins wherever it appears.
        #expect(ShareBinary.run(["send", "a.txt", "--to", "x:1", "--help"], environment: env).stdout == GoldenHelp.send)
    }

    @Test func versionIsPrinted() {
        let result = ShareBinary.run(["--version"], environment: env)
        #expect(result.status == 0)
        #expect(result.stdout == "share 0.1.0\n")
    }

    @Test func usageErrorsAreExactAndExit64() {
        let cases: [([String], String)] = [
            (
                ["send", "a.txt"],
                """
                Error: Missing expected option '--to <peer>' (there is no terminal to choose receivers on)
                Usage: share send [<path> ...] [--text <text>] [--to <peer> ...] [--name <name>] [--retry-for <duration> | --no-retry] [--exclude <pattern> ...] [-L] [--limit-rate <rate>] [--no-compress] [--pin <pin> | --pin-file <file>] [--link [--link-port <port>] [--link-timeout <duration>]] [--json]
                  See 'share send --help' for more information.

                """
            ),
            (
                ["send", "--to", "10.0.0.1:47321"],
                """
                Error: Missing expected argument '<path> ...' (or --text)
                Usage: share send [<path> ...] [--text <text>] [--to <peer> ...] [--name <name>] [--retry-for <duration> | --no-retry] [--exclude <pattern> ...] [-L] [--limit-rate <rate>] [--no-compress] [--pin <pin> | --pin-file <file>] [--link [--link-port <port>] [--link-timeout <duration>]] [--json]
                  See 'share send --help' for more information.

                """
            ),
            (
                ["send", "a.txt", "--to", "10.0.0.1:47321", "--retry-for", "soon"],
                """
                Error: The value 'soon' is invalid for '--retry-for'; expected e.g. 90s, 10m or 2h
                Usage: share send [<path> ...] [--text <text>] [--to <peer> ...] [--name <name>] [--retry-for <duration> | --no-retry] [--exclude <pattern> ...] [-L] [--limit-rate <rate>] [--no-compress] [--pin <pin> | --pin-file <file>] [--link [--link-port <port>] [--link-timeout <duration>]] [--json]
                  See 'share send --help' for more information.

                """
            ),
            (
                ["send", "a.txt", "--to", "10.0.0.1:47321", "--retry-for", "1m", "--no-retry"],
                """
                Error: --retry-for and --no-retry cannot be used together
                Usage: share send [<path> ...] [--text <text>] [--to <peer> ...] [--name <name>] [--retry-for <duration> | --no-retry] [--exclude <pattern> ...] [-L] [--limit-rate <rate>] [--no-compress] [--pin <pin> | --pin-file <file>] [--link [--link-port <port>] [--link-timeout <duration>]] [--json]
                  See 'share send --help' for more information.

                """
            ),
            (
                ["send", "a.txt", "--tou", "10.0.0.1:47321"],
                """
                Error: Unknown option '--tou'. Did you mean '--to'?
                Usage: share send [<path> ...] [--text <text>] [--to <peer> ...] [--name <name>] [--retry-for <duration> | --no-retry] [--exclude <pattern> ...] [-L] [--limit-rate <rate>] [--no-compress] [--pin <pin> | --pin-file <file>] [--link [--link-port <port>] [--link-timeout <duration>]] [--json]
                  See 'share send --help' for more information.

                """
            ),
            (
                ["send", "a.txt", "--to"],
                """
                Error: Missing value for '--to <peer>'
                Usage: share send [<path> ...] [--text <text>] [--to <peer> ...] [--name <name>] [--retry-for <duration> | --no-retry] [--exclude <pattern> ...] [-L] [--limit-rate <rate>] [--no-compress] [--pin <pin> | --pin-file <file>] [--link [--link-port <port>] [--link-timeout <duration>]] [--json]
                  See 'share send --help' for more information.

                """
            ),
            (
                ["peers", "--wait", "2", "--watch"],
                """
                Error: --wait and --watch cannot be used together
                Usage: share peers [<options>]
                  See 'share peers --help' for more information.

                """
            ),
            (
                ["receive", "--port", "99999"],
                """
                Error: The value '99999' is invalid for '--port'; expected a number from 0 to 65535
                Usage: share receive [<options>]
                  See 'share receive --help' for more information.

                """
            ),
            (
                ["receive", "--accept", "maybe"],
                """
                Error: The value 'maybe' is invalid for '--accept'; expected one of: ask, trusted, everyone, all
                Usage: share receive [<options>]
                  See 'share receive --help' for more information.

                """
            ),
            (
                ["receive", "--json=yes"],
                """
                Error: The option '--json' takes no value
                Usage: share receive [<options>]
                  See 'share receive --help' for more information.

                """
            ),
            (
                ["receive", "--everyone-for", "10m"],
                """
                Error: --everyone-for needs --accept everyone (the setting 'accept' is ask)
                Usage: share receive [<options>]
                  See 'share receive --help' for more information.

                """
            ),
            (
                ["receive", "--accept", "everyone", "--everyone-for", "soon"],
                """
                Error: The value 'soon' is invalid for '--everyone-for'; expected e.g. 90s, 10m or 2h
                Usage: share receive [<options>]
                  See 'share receive --help' for more information.

                """
            ),
            (
                ["trust", "remove"],
                """
                Error: Missing expected argument '<peer>'
                Usage: share trust remove <peer>
                  See 'share trust remove --help' for more information.

                """
            ),
            (
                ["recieve"],
                """
                Error: Unknown subcommand 'recieve'. Did you mean 'receive'?
                Usage: share <subcommand>
                  See 'share --help' for more information.

                """
            ),
            (
                ["frobnicate"],
                """
                Error: Unknown subcommand 'frobnicate'; expected one of: receive, peers, send, history, trust, types, inbox, identity, config, completion
                Usage: share <subcommand>
                  See 'share --help' for more information.

                """
            ),
            (
                ["help", "frobnicate"],
                """
                Error: Unknown subcommand 'frobnicate'; expected one of: receive, peers, send, history, trust, types, inbox, identity, config, completion
                Usage: share <subcommand>
                  See 'share --help' for more information.

                """
            ),
            (
                ["identity", "set-name"],
                """
                Error: Missing expected argument '<name>'
                Usage: share identity set-name <name>
                  See 'share identity set-name --help' for more information.

                """
            ),
        ]
        for (arguments, expected) in cases {
            let result = ShareBinary.run(arguments, environment: env)
            #expect(result.status == 64, "share \(arguments)")
            #expect(result.stdout == "", "share \(arguments)")
            #expect(result.stderr == expected, "share \(arguments)")
        }
    }

    @Test func helpWrapsToColumns() {
        var narrow = env
        narrow["COLUMNS"] = "50"
        let result = ShareBinary.run(["send", "--help"], environment: narrow)
        #expect(result.stdout.split(separator: "\n").allSatisfy { $0.count <= 50 || $0.hasPrefix("USAGE:") })
    }
}
