import Foundation
import ShareTestSupport
import Testing

@testable import ShareCLI

#if canImport(Glibc)
import Glibc
#endif

/// The completion scripts of `share completion`, run by the real shells: bash (its completion
/// function called as bash calls it), zsh (the function with zsh's completion builtins replaced by
/// ones that print what they were given), fish (`complete -C`).
@Suite(.serialized) struct CompletionTests {
    /// A folder with the scripts, a `share` stub on PATH that lists two receivers (one with a
    /// space in its name), and a few files to complete.
    final class Bench: Sendable {
        let dir = TemporaryDirectory("completion")
        var bin: String { dir.at("bin") }

        init(peers: String = "desk\nliving room\n", delay: Int = 0) {
            FileTree.makeFolder(dir.at("bin"))
            FileTree.makeFolder(dir.at("work/Photos"))
            FileTree.writeText(dir.at("work/report.pdf"), "%PDF")
            for shell in ["bash", "zsh", "fish"] {
                FileTree.writeText(dir.at("share.\(shell)"), ShareBinary.run(["completion", shell]).stdout)
            }
            // `share` as the completion scripts call it: only `peers --names` matters.
            FileTree.writeText(
                dir.at("bin/share"),
                "#!/bin/sh\n[ \"$1 $2\" = \"peers --names\" ] || exit 64\nsleep \(delay)\nprintf '\(peers.replacingOccurrences(of: "\n", with: "\\n"))'\n"
            )
            chmod(dir.at("bin/share"), 0o755)
        }

        /// Runs `shell -c script` in the work folder with the stub first on PATH.
        func run(_ shell: String, _ arguments: [String]) throws -> String {
            let child = try Subprocess(
                executable: "/usr/bin/" + shell, arguments: arguments,
                environment: ["PATH": bin + ":/usr/bin:/bin", "HOME": dir.path, "TERM": "dumb"], stdinPipe: false)
            let output = String(decoding: child.readToEnd(), as: UTF8.self)
            _ = child.reap(block: true)
            return output
        }

        /// What bash offers after `words` (the last one being completed), one per line.
        func bash(_ words: [String]) throws -> [String] {
            let script = """
                cd \(CompletionScript.quote(dir.at("work")))
                source \(CompletionScript.quote(dir.at("share.bash")))
                COMP_WORDS=(\(words.map(CompletionScript.quote).joined(separator: " ")))
                COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
                COMP_LINE="${COMP_WORDS[*]}"
                COMP_POINT=${#COMP_LINE}
                _share
                printf '%s\\n' "${COMPREPLY[@]}"
                """
            return try run("bash", ["-c", script]).split(separator: "\n").map(String.init)
        }

        /// What zsh's completion builtins were given after `words`, one per line.
        func zsh(_ words: [String]) throws -> [String] {
            let script = """
                cd \(CompletionScript.quote(dir.at("work")))
                compadd() { if [[ $1 == -a ]]; then print -rl -- "${(@P)2}"; else while [[ $1 == -* && $1 != -- ]]; do shift; done; [[ $1 == -- ]] && shift; print -rl -- "$@"; fi }
                _describe() { local entry; for entry in "${(@P)${@[-1]}}"; do print -r -- "${entry%%:*}"; done }
                _files() { print -r -- "(files $*)" }
                compset() { PREFIX=${PREFIX#*=}; return 0 }
                words=(\(words.map(CompletionScript.quote).joined(separator: " ")))
                CURRENT=${#words}
                PREFIX=${words[CURRENT]}
                source \(CompletionScript.quote(dir.at("share.zsh")))
                """
            return try run("zsh", ["-f", "-c", script]).split(separator: "\n").map(String.init)
        }

        /// What fish offers for the command line `line`, without descriptions.
        func fish(_ line: String) throws -> [String] {
            let script = """
                cd \(CompletionScript.fishQuote(dir.at("work")))
                source \(CompletionScript.fishQuote(dir.at("share.fish")))
                complete -C \(CompletionScript.fishQuote(line))
                """
            return try run("fish", ["--no-config", "-c", script]).split(separator: "\n").map {
                String($0.split(separator: "\t").first ?? "")
            }
        }
    }

    static let commands = [
        "receive", "peers", "send", "history", "trust", "types", "inbox", "identity", "config", "completion",
    ]

    @Test func bashCompletesCommandsOptionsFilesKeysAndPeers() throws {
        let bench = Bench()
        #expect(try bench.bash(["share", ""]) == Self.commands, "the hidden command is not offered")
        #expect(try bench.bash(["share", "tr"]) == ["trust"])
        #expect(try bench.bash(["share", "trust", "ca", ""]) == ["add", "list", "remove"])
        #expect(try bench.bash(["share", "send", "--"]) == ["--to", "--text", "--name", "--retry-for", "--no-retry", "--exclude", "--follow-links", "--limit-rate", "--no-compress", "--pin", "--pin-file", "--link", "--link-port", "--link-timeout", "--json", "--help"])
        #expect(try bench.bash(["share", "send", ""]) == ["Photos", "report.pdf"])
        #expect(
            try bench.bash(["share", "send", "report.pdf", "--to", ""]) == ["desk", "living\\ room"],
            "a name with a space is quoted")
        #expect(try bench.bash(["share", "send", "--to", "li"]) == ["living\\ room"])
        #expect(
            try bench.bash(["share", "send", "--to", "desk", "rep"]) == ["report.pdf"], "the value of --to is skipped")
        #expect(try bench.bash(["share", "receive", "--dir", ""]) == ["Photos"])
        #expect(try bench.bash(["share", "receive", "--accept", ""]) == ["ask", "trusted", "everyone"])
        #expect(
            try bench.bash(["share", "config", "set", ""]) == [
                "name", "dir", "port", "accept", "everyone-for", "execute-bit", "compression", "rate-limit", "localsend",
            ])
        #expect(try bench.bash(["share", "config", "set", "compression", ""]) == ["on", "off"])
        #expect(try bench.bash(["share", "completion", ""]) == ["bash", "zsh", "fish"])
        #expect(try bench.bash(["share", "send", "send"]).isEmpty, "a file may be called like a command")
    }

    @Test func zshCompletesTheSame() throws {
        let bench = Bench()
        #expect(try bench.zsh(["share", ""]) == Self.commands)
        #expect(try bench.zsh(["share", "trust", "ca", ""]) == ["add", "list", "remove"])
        #expect(try bench.zsh(["share", "send", "-"]) == ["--to", "--text", "--name", "--retry-for", "--no-retry", "--exclude", "--follow-links", "--limit-rate", "--no-compress", "--pin", "--pin-file", "--link", "--link-port", "--link-timeout", "--json", "--help"])
        #expect(try bench.zsh(["share", "send", ""]) == ["(files )"])
        #expect(try bench.zsh(["share", "send", "x", "--to", ""]) == ["desk", "living room"])
        #expect(try bench.zsh(["share", "send", "x", "--to=d"]) == ["desk", "living room"], "--to=NAME too")
        #expect(try bench.zsh(["share", "receive", "--dir", ""]) == ["(files -/)"])
        #expect(try bench.zsh(["share", "config", "set", "accept", ""]) == ["ask", "trusted", "everyone"])
    }

    @Test func fishCompletesTheSame() throws {
        let bench = Bench()
        #expect(try bench.fish("share ").sorted() == Self.commands.sorted())
        #expect(try bench.fish("share trust ca ") == ["add", "list", "remove"])
        #expect(try bench.fish("share send --").sorted() == ["--exclude", "--follow-links", "--help", "--json", "--limit-rate", "--link", "--link-port", "--link-timeout", "--name", "--no-compress", "--no-retry", "--pin", "--pin-file", "--retry-for", "--text", "--to"])
        #expect(try bench.fish("share send ").sorted() == ["Photos/", "report.pdf"])
        #expect(try bench.fish("share send report.pdf --to ").sorted() == ["desk", "living room"])
        #expect(try bench.fish("share receive --accept ").sorted() == ["ask", "everyone", "trusted"])
        #expect(try bench.fish("share config set ").contains("rate-limit"))
        #expect(try bench.fish("share config set execute-bit ").sorted() == ["keep-in-bundles", "strip"])
    }

    @Test func aSlowPeerListDoesNotHoldTheShell() throws {
        let bench = Bench(delay: 30)
        let started = ContinuousClock.now
        #expect(try bench.bash(["share", "send", "--to", ""]).isEmpty)
        #expect(ContinuousClock.now - started < .seconds(5), "given up after 2 seconds")
    }
}
