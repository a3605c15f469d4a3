import Foundation
import ShareKit
import TypeRegistry

#if canImport(Glibc)
    import Glibc
#endif

/// `share inbox import ID`: retries the import of a document in the inbox.
struct InboxImportCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "import",
        abstract: "Import a document from the inbox again.",
        discussion: """
            Resolves the document's type again with the applications registered now, and hands it to \
            the best one (or places it in the receive folder). The document leaves the inbox only when \
            that succeeds. The identifier may be shortened to a unique prefix of at least 4 digits. \
            When the application needs the document's password, it is asked for on the terminal \
            (nothing typed is shown), or read from --password-file (a file only you can read, or - for \
            standard input); the application gets it on its standard input, never in an argument or a \
            file. A wrong password leaves the document in the inbox. A document no application imports \
            goes to the receive folder of the receiver that kept it (its --dir), unless --dir says otherwise. \
            --all retries every document in the inbox, one after another.
            """,
        arguments: [
            ArgumentSpec(name: "id", help: "The entry's identifier, as 'share inbox list' shows it.", optional: true)
        ],
        options: [
            .flag("all", help: "Import every document in the inbox (none that another process is importing)."),
            .value(
                "dir", "folder",
                help: "The receive folder for a document no application imports (default: the one of the receiver that kept it, else your download folder)."),
            .value(
                "password-file", "file",
                help: "Read the document's password from the first line of this file ('-': standard input)."),
            .flag("json", help: "Print the result as JSON."),
        ]
    )

    let id: String?
    let all: Bool
    let directory: String?
    let passwordFile: String?
    let json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        id = parsed.positionals.first
        all = parsed.flag("all")
        directory = parsed.value("dir")
        passwordFile = parsed.value("password-file")
        json = parsed.flag("json")
        if id == nil && !all { throw parsed.usageError("Missing expected argument '<id>' (or --all)") }
        if id != nil && all { throw parsed.usageError("Give either an entry's identifier or --all, not both") }
        if all && passwordFile != nil {
            throw parsed.usageError("--password-file works with one entry; import the documents that need a password one at a time")
        }
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let console = context.console
        let registry = LocalTypes.registry(context)
        let inbox = Inbox(directory: context.paths.inboxDirectory)
        var importer = DocumentImporter(
            inbox: inbox, registry: registry,
            receiveFolder: LocalTypes.absolute(directory ?? context.paths.downloadDirectory),
            environment: console.environment)
        importer.prefersEntryReceiveFolder = directory == nil
        guard let id else { return try await importAll(importer, context: context) }
        do {
            return try await importOne(id, importer: importer, context: context)
        } catch {
            guard json else { throw error }
            let name = (try? inbox.entry(id))?.name
            console.line(Self.failedJSON(id: (try? inbox.resolve(id)) ?? id, name: name, error: error.message).text())
            console.error(error.message)
            return error.exitCode
        }
    }

    /// `{"ok":false,"id":...,"name":...,"error":...}` for an entry that could not even be tried.
    static func failedJSON(id: String, name: String?, error: String) -> JSON {
        .object([
            ("ok", .bool(false)), ("id", .string(id)), ("name", name.map(JSON.string) ?? .null),
            ("error", .string(error)),
        ])
    }

    /// `--all`: every entry, oldest first; 0 when each was imported or placed, else 1.
    private func importAll(_ importer: DocumentImporter, context: CommandContext) async throws(CLIError) -> Int32 {
        let console = context.console
        let (entries, problems) = importer.inbox.entries()
        for problem in problems { console.warning(TerminalText.safe(problem)) }
        if entries.isEmpty {
            if !json { console.line("The inbox is empty.") }
            return problems.isEmpty ? ExitCode.success : ExitCode.failure
        }
        var done = 0
        var left = 0
        for entry in entries {
            let result: ImportResult
            do {
                result = try await attempt(importer, id: entry.id, password: nil)
            } catch {
                left += 1
                if json {
                    console.line(Self.failedJSON(id: entry.id, name: entry.name, error: error.message).text())
                } else {
                    console.error(error.message)
                }
                continue
            }
            if case .kept = result.outcome { left += 1 } else { done += 1 }
            report(result, password: nil, importer: importer, context: context)
        }
        if !json {
            let total = done + left
            console.line(
                "Imported \(done) of \(total) \(total == 1 ? "document" : "documents")"
                    + (left == 0 ? "." : "; \(left) \(left == 1 ? "stays" : "stay") in the inbox ('share inbox list' says why)."))
        }
        return left == 0 && problems.isEmpty ? ExitCode.success : ExitCode.failure
    }

    private func importOne(_ entryID: String, importer: DocumentImporter, context: CommandContext) async throws(CLIError)
        -> Int32
    {
        let console = context.console
        let inbox = importer.inbox
        var password = try passwordFile.map(readPasswordFile)
        defer { Self.erase(&password) }
        // A document known to need its password: ask before the first attempt.
        if password == nil, let entry = try? inbox.entry(entryID), entry.needsPassword {
            password = try ask(for: entry, application: importer.plan(entry).application?.name, console: console)
        }
        var result = try await attempt(importer, id: entryID, password: password)
        if password == nil, result.entry.needsPassword, case .kept = result.outcome, console.stdinIsTerminal {
            password = try ask(for: result.entry, application: result.application?.name, console: console)
            result = try await attempt(importer, id: result.entry.id, password: password)
        }
        if let failure = report(result, password: password, importer: importer, context: context) {
            console.error(failure)
            return ExitCode.failure
        }
        return ExitCode.success
    }

    /// Prints what became of one entry (a JSON line, or text); returns the error message when it
    /// stays in the inbox (printed by the caller for a single entry, here for `--all`).
    @discardableResult
    private func report(_ result: ImportResult, password: [UInt8]?, importer: DocumentImporter, context: CommandContext)
        -> String?
    {
        let console = context.console
        let home = context.paths.home
        if json {
            console.line(ReceivedReport.resultJSON(result, inbox: importer.inbox).text())
        } else {
            for warning in result.warnings { console.warning(TerminalText.safe(warning)) }
        }
        let name = "\"\(TerminalText.safe(result.entry.name))\""
        switch result.outcome {
        case .receiveFolder(let path):
            if !json {
                console.line(
                    "Placed \(name) in the receive folder: \(TerminalText.safe(DisplayPath.abbreviate(path, home: home))) "
                        + "(\(TerminalText.safe(result.receiveFolderReason ?? "no application imports it")))."
                )
            }
            return nil
        case .imported(let path):
            if !json {
                let app = "\"\(TerminalText.safe(result.application?.name ?? "?"))\""
                let into = path.map { " into \(TerminalText.safe(DisplayPath.abbreviate($0, home: home)))" } ?? ""
                console.line("Imported \(name) with \(app)\(into).")
            }
            return nil
        case .kept(let failure, _):
            let hint =
                result.entry.needsPassword && password == nil
                ? "run 'share inbox import \(result.entry.id)' on a terminal or give --password-file; " : ""
            let message =
                "\(name) stays in the inbox: \(TerminalText.safe(failure)); \(hint)"
                + "'share inbox remove \(result.entry.id)' deletes it"
            if all && !json { console.error(message) }
            return message
        }
    }

    private func attempt(_ importer: DocumentImporter, id: String, password: [UInt8]?) async throws(CLIError)
        -> ImportResult
    {
        do {
            return try await BlockingCall.run { () throws(InboxError) in
                try importer.importEntry(id, password: password)
            }
        } catch {
            throw CLIError(TerminalText.safe(error.description))
        }
    }

    /// Asks on the terminal for the password of an entry.
    private func ask(for entry: InboxEntry, application: String?, console: Console) throws(CLIError) -> [UInt8] {
        let owner = application.map { " (\(TerminalText.safe($0)))" } ?? ""
        let answer: [UInt8]
        do throws(SecretPrompt.Failure) {
            answer = try SecretPrompt.read(
                "Password for \"\(TerminalText.safe(entry.name))\"\(owner): ", console: console)
        } catch {
            switch error {
            case .noTerminal:
                throw CLIError(
                    "\"\(TerminalText.safe(entry.name))\" needs its password and there is no terminal to ask on; "
                        + "give --password-file")
            case .cancelled:
                throw CLIError("no password given; \"\(TerminalText.safe(entry.name))\" stays in the inbox")
            }
        }
        return try checked(answer, source: "the password typed")
    }

    /// The first line of the password file, refused when other users could read the file.
    private func readPasswordFile(_ file: String) throws(CLIError) -> [UInt8] {
        let data: Data?
        if file == "-" {
            data = FileHandle.standardInput.readData(ofLength: DocumentImporter.maximumPasswordLength + 2)
        } else {
            let path = LocalTypes.absolute(file)
            var info = stat()
            guard stat(path, &info) == 0 else {
                throw CLIError(
                    "cannot read the password file '\(TerminalText.safe(file))': \(String(cString: strerror(errno)))")
            }
            if (info.st_mode & S_IFMT) == S_IFREG && info.st_mode & 0o077 != 0 {
                throw CLIError(
                    "the password file '\(TerminalText.safe(file))' can be read by other users (mode "
                        + String(info.st_mode & 0o777, radix: 8)
                        + "); make it yours alone with 'chmod 600 \(TerminalText.safe(file))'")
            }
            data = FileManager.default.contents(atPath: path)
        }
        guard let data else { throw CLIError("cannot read the password file '\(TerminalText.safe(file))'") }
        var bytes = [UInt8](data.prefix { $0 != 0x0A && $0 != 0x0D })
        defer { Self.erase(&bytes) }
        return try checked(bytes, source: "the password file '\(TerminalText.safe(file))'")
    }

    private func checked(_ password: [UInt8], source: String) throws(CLIError) -> [UInt8] {
        guard !password.isEmpty else { throw CLIError("\(source): the password is empty") }
        guard password.count <= DocumentImporter.maximumPasswordLength, !password.contains(0) else {
            throw CLIError("\(source): not a usable password (at most 1024 bytes, no NUL)")
        }
        return password
    }

    /// Overwrites a password in memory (best effort).
    private static func erase(_ password: inout [UInt8]?) {
        guard var bytes = password else { return }
        password = nil
        erase(&bytes)
    }

    private static func erase(_ bytes: inout [UInt8]) {
        for index in bytes.indices { bytes[index] = 0 }
    }
}
