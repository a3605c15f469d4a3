import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `make install` into a temporary DESTDIR: every file is there with its mode, every man page
/// renders, what an installed share suggests exists, and `make uninstall` removes it all.
@Suite(.serialized) struct InstallTests {
    static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// Runs a program to its end; its status and output (stdout and stderr).
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:]
    ) throws -> (status: Int32, output: String) {
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        let child = try Subprocess(executable: executable, arguments: arguments, environment: env, stdinPipe: false)
        let output = String(decoding: child.readToEnd(), as: UTF8.self)
        return (child.reap(block: true) ?? -1, output)
    }

    /// `make TARGET` in the package with `variables`.
    static func make(_ target: String, _ variables: [String: String]) throws -> (status: Int32, output: String) {
        try run("/usr/bin/make", ["-s", "-C", root, target] + variables.map { "\($0.key)=\($0.value)" }.sorted())
    }

    /// The man pages the command table calls for: share(1), one per command, share-team-ca(1).
    static var manPages: [String] {
        let commands =
            ShareBinary.run(["--help"]).stdout.components(separatedBy: "SUBCOMMANDS:\n").last?
            .components(separatedBy: "\n\n").first?.split(separator: "\n")
            .compactMap {
                $0.hasPrefix("  ") && !$0.hasPrefix("   ") ? $0.split(separator: " ").first.map(String.init) : nil
            } ?? []
        return ["share.1", "share-team-ca.1"] + commands.map { "share-\($0).1" }
    }

    @Test func anInstallHoldsEveryFileEveryManPageRendersAndUninstallRemovesIt() throws {
        let dir = TemporaryDirectory("install")
        let destination = dir.at("root")
        let bindir = (ShareBinary.path as NSString).deletingLastPathComponent
        let variables = ["DESTDIR": destination, "PREFIX": "/usr", "BUILD": bindir]
        let installed = try Self.make("install-files", variables)
        #expect(installed.status == 0, "\(installed.output)")

        let pages = Self.manPages
        #expect(pages.count >= 12, "\(pages)")
        var expected: [String: mode_t] = [
            "/usr/bin/share": 0o755, "/usr/bin/share-team-ca": 0o755,
            "/usr/share/share/openssl-team-ca.cnf": 0o644,
            "/usr/share/bash-completion/completions/share": 0o644, "/usr/share/zsh/site-functions/_share": 0o644,
            "/usr/share/fish/vendor_completions.d/share.fish": 0o644,
            "/usr/lib/systemd/user/share-receive.service": 0o644,
            "/usr/libexec/share/share-send-dialog": 0o755,
            "/usr/share/applications/share-send.desktop": 0o644,
            "/usr/share/kio/servicemenus/share-send.desktop": 0o644,
            "/usr/share/Thunar/sendto/share-send.desktop": 0o644,
            "/usr/share/share/file-managers/thunar-uca.xml": 0o644,
            "/usr/share/share/file-managers/send-with-share": 0o755,
            "/usr/share/doc/share/README.md": 0o644,
            "/usr/share/share/installed-files": 0o644,
        ]
        for page in pages { expected["/usr/share/man/man1/" + page] = 0o644 }
        // The documentation the README and messages point to (docs/WIDE-AREA.md, docs/TYPES.md, ...).
        let docs = try FileManager.default.contentsOfDirectory(atPath: Self.root + "/docs").filter { $0.hasSuffix(".md") }
        #expect(docs.contains("TYPES.md"))
        for doc in docs { expected["/usr/share/doc/share/docs/" + doc] = 0o644 }
        expected["/usr/share/doc/share/Certificates/README.md"] = 0o644
        let found = FileTree.allPaths(destination).filter { path in
            var info = stat()
            return lstat(destination + "/" + path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
        }
        #expect(Set(found.map { "/" + $0 }) == Set(expected.keys), "exactly these files")
        for (path, mode) in expected {
            var info = stat()
            #expect(stat(destination + path, &info) == 0 && info.st_mode & 0o7777 == mode, "\(path)")
        }

        // Every page renders, without a warning from groff, and lists each option of its command.
        for page in pages {
            let path = destination + "/usr/share/man/man1/" + page
            let rendered = try Self.run(
                "/usr/bin/man", ["-l", path], environment: ["MANWIDTH": "80", "MANPAGER": "cat", "PAGER": "cat"])
            #expect(rendered.status == 0, "\(page): \(rendered.output)")
            #expect(rendered.output.contains("NAME"), "\(page)")
            let warnings = try Self.run("/usr/bin/groff", ["-man", "-ww", "-z", path])
            #expect(warnings.status == 0 && warnings.output.isEmpty, "\(page): \(warnings.output)")
        }
        let send = try Self.run(
            "/usr/bin/man", ["-l", destination + "/usr/share/man/man1/share-send.1"],
            environment: ["MANWIDTH": "100", "MANPAGER": "cat"])
        for text in [
            "share send [<path> ...] [--text <text>]", "--text <text>", "--to <peer>", "--name <name>", "--retry-for <duration>", "--no-retry",
            "SEE ALSO",
        ] {
            #expect(send.output.contains(text), "\(text)")
        }

        // Paths in the installed files are the installed ones.
        #expect(
            FileTree.readText(destination + "/usr/lib/systemd/user/share-receive.service").contains(
                "\nExecStart=/usr/bin/share receive --service\n"))
        for entry in [
            "applications/share-send.desktop", "kio/servicemenus/share-send.desktop",
            "Thunar/sendto/share-send.desktop",
        ] {
            #expect(
                FileTree.readText(destination + "/usr/share/" + entry).contains(
                    "Exec=/usr/libexec/share/share-send-dialog %F"), "\(entry)")
        }
        #expect(
            FileTree.readText(destination + "/usr/libexec/share/share-send-dialog").contains(
                "share=${SHARE:-/usr/bin/share}"))
        for entry in ["applications/share-send.desktop", "Thunar/sendto/share-send.desktop"] {
            let validated = try Self.run("/usr/bin/desktop-file-validate", [destination + "/usr/share/" + entry])
            #expect(validated.status == 0 && validated.output.isEmpty, "\(entry): \(validated.output)")
        }
        for script in [
            "/usr/bin/share-team-ca", "/usr/libexec/share/share-send-dialog",
            "/usr/share/share/file-managers/send-with-share",
        ] {
            #expect(try Self.run("/bin/bash", ["-n", destination + script]).status == 0, "\(script)")
        }

        // What an installed share suggests exists: `share identity csr` names share-team-ca, which
        // works from where it is installed (it finds its OpenSSL configuration there).
        FileTree.makeFolder(dir.at("home"))
        let environment = ShareBinary.environment(home: dir.at("home"), config: dir.at("home/.config/share"))
        let csr = ShareBinary.run(["identity", "csr", "--out", dir.at("node.csr")], environment: environment)
        #expect(csr.stdout.contains("Have your team CA sign it, e.g. share-team-ca issue CA-FOLDER"))
        let initialized = try Self.run(
            destination + "/usr/bin/share-team-ca", ["init", dir.at("ca"), "Install Test CA"])
        #expect(initialized.status == 0, "\(initialized.output)")
        let issued = try Self.run(
            destination + "/usr/bin/share-team-ca", ["issue", dir.at("ca"), dir.at("node.csr"), dir.at("node.pem")])
        #expect(issued.status == 0, "\(issued.output)")
        #expect(ShareBinary.run(["identity", "import-cert", dir.at("node.pem")], environment: environment).status == 0)

        let removed = try Self.make("uninstall", variables)
        #expect(removed.status == 0, "\(removed.output)")
        #expect(
            FileTree.allPaths(destination).filter { path in
                var info = stat()
                return lstat(destination + "/" + path, &info) == 0 && info.st_mode & S_IFMT != S_IFDIR
            }.isEmpty, "nothing is left but the standard folders")
        #expect(!FileManager.default.fileExists(atPath: destination + "/usr/share/share"))
        #expect(!FileManager.default.fileExists(atPath: destination + "/usr/libexec/share"))
    }
}
