import Foundation
import ShareKit
import ShareTLS
import TypeRegistry

/// `share trust ca`: the team CAs whose certificates make a machine trusted without a code.
enum TrustCACommand {
    static let spec = CommandSpec(
        name: "ca",
        abstract: "Manage the team CAs this machine trusts.",
        discussion: """
            A team CA is a certificate authority run by your team ('share-team-ca init' makes one). \
            A machine whose certificate a team CA you added has issued is trusted without a \
            verification code; it is still identified by its fingerprint. Removing the CA is how its \
            certificates are revoked. The CAs are kept in 'trusted-cas/' in the config folder.
            """,
        subcommands: [TrustCAAddCommand.spec, TrustCAListCommand.spec, TrustCARemoveCommand.spec],
        runnable: false
    )

    /// Reads a PEM file given on the command line (at most 1 MiB).
    static func readFile(_ path: String, what: String) throws(CLIError) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw CLIError("cannot read \(what) '\(TerminalText.safe(path))': no such file")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size <= 1 << 20 else {
            throw CLIError("'\(TerminalText.safe(path))' is too large to be \(what) (\(size) bytes)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError("cannot read \(what) '\(TerminalText.safe(path))': permission denied or not a regular file")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// `2036-11-27`.
    static func day(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day())
    }

    /// `2036-11-27T11:03:03Z`.
    static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    /// `valid`, `expired` or `not-yet-valid`.
    static func status(_ info: CAInfo, now: Date = Date()) -> String {
        if info.notAfter < now { return "expired" }
        if info.notBefore > now { return "not-yet-valid" }
        return "valid"
    }

    /// A CA as JSON.
    static func json(_ info: CAInfo, file: String?) -> JSON {
        var members: [(String, JSON)] = [
            // The SHA-256 of the CA's certificate (not a key's fingerprint: docs/JSON.md).
            ("sha256", .string(info.fingerprint.hex)),
            ("subject", .string(info.subject)),
            ("name", .string(info.displayName)),
            ("notBefore", .string(timestamp(info.notBefore))),
            ("notAfter", .string(timestamp(info.notAfter))),
            ("status", .string(status(info))),
        ]
        if let file { members.append(("file", .string(file))) }
        return .object(members)
    }
}

/// `share trust ca add FILE`: trusts a team CA.
struct TrustCAAddCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "add",
        abstract: "Trust a team CA: machines it issued certificates to need no code.",
        discussion: """
            FILE is the team CA's certificate (ca.crt, PEM). It must be a self-signed CA certificate \
            (basicConstraints CA:TRUE, keyCertSign) that is valid now; a file holding a private key \
            is refused. Compare the SHA-256 fingerprint printed here with the one whoever runs the CA \
            gave you: anyone holding that CA's key can then vouch for any machine.
            """,
        arguments: [ArgumentSpec(name: "file", help: "The team CA's certificate (PEM).")],
        options: [.flag("json", help: "Print the CA as JSON.")]
    )

    let file: String
    let json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        file = parsed.positionals[0]
        json = parsed.flag("json")
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let pem = try TrustCACommand.readFile(file, what: "a CA certificate")
        let store = TeamCAStore(configDirectory: context.paths.configDirectory)
        let info: CAInfo
        let added: Bool
        do {
            (info, added) = try store.add(pem: pem, source: file)
        } catch {
            throw CLIError(TerminalText.safe(error.description))
        }
        if json {
            var object = TrustCACommand.json(info, file: nil)
            if case .object(let members) = object { object = .object(members + [("added", .bool(added))]) }
            context.console.line(object.pretty())
            return ExitCode.success
        }
        let name = TerminalText.safe(info.displayName)
        if added {
            context.console.line("Now trusting the team CA \"\(name)\" (valid until \(TrustCACommand.day(info.notAfter))).")
            context.console.line("  SHA-256 \(info.fingerprint.hex)")
            context.console.line("Machines with a certificate it issued are trusted without a verification code.")
        } else {
            context.console.line("The team CA \"\(name)\" was already trusted.")
            context.console.line("  SHA-256 \(info.fingerprint.hex)")
        }
        return ExitCode.success
    }
}

/// `share trust ca list`: the team CAs this machine trusts.
struct TrustCAListCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "list",
        abstract: "List the team CAs this machine trusts.",
        discussion: """
            Shows each CA's fingerprint (the SHA-256 of its certificate; a beginning of it is \
            enough for 'share trust ca remove'), its name, when it expires, and whether it is valid: \
            an expired CA vouches for no one.
            """,
        options: [.flag("json", help: "Print the CAs as a JSON array.")]
    )

    let json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        json = parsed.flag("json")
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let entries: [TeamCAStore.Entry]
        do {
            entries = try TeamCAStore(configDirectory: context.paths.configDirectory).entries()
        } catch {
            throw CLIError(TerminalText.safe(error.description))
        }
        var rows: [JSON] = []
        var table: [(String, String, String, String)] = []
        for entry in entries {
            switch entry.authority {
            case .success(let authority):
                let info = authority.info
                rows.append(TrustCACommand.json(info, file: entry.path))
                table.append(
                    (info.fingerprint.prefix(16), TerminalText.safe(info.displayName), TrustCACommand.day(info.notAfter),
                     TrustCACommand.status(info)))
            case .failure(let problem):
                rows.append(.object([("file", .string(entry.path)), ("status", .string("broken")), ("error", .string(problem.description))]))
                context.console.warning(
                    "\(TerminalText.safe(entry.path)) is not a usable team CA: \(TerminalText.safe(problem.description)) "
                        + "Remove the file and add the CA again.")
            }
        }
        if json {
            context.console.line(JSON.array(rows).pretty())
            return ExitCode.success
        }
        if table.isEmpty {
            context.console.line("No team CA is trusted. Add one with 'share trust ca add FILE'.")
            return ExitCode.success
        }
        let nameWidth = min(40, max(4, table.map(\.1.count).max() ?? 0))
        context.console.line("FINGERPRINT       \("NAME".rightPadded(nameWidth))  EXPIRES     STATUS")
        for (fingerprint, name, expires, status) in table {
            context.console.line("\(fingerprint)  \(name.rightPadded(nameWidth))  \(expires)  \(status)")
        }
        return ExitCode.success
    }
}

/// `share trust ca remove ID`: stops trusting a team CA.
struct TrustCARemoveCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "remove",
        abstract: "Stop trusting a team CA.",
        discussion: """
            ID is a beginning of the CA's fingerprint (as 'share trust ca list' shows it) or its \
            name. From then on the machines it vouched for are no longer trusted through it, also by \
            a 'share receive' that is already running: this is how a team CA's certificates are \
            revoked. Machines you trusted by their fingerprint stay trusted.
            """,
        arguments: [ArgumentSpec(name: "id", help: "A beginning of the CA's fingerprint, or its name.")]
    )

    let id: String

    init(_ parsed: ParsedArguments) throws(UsageError) {
        id = parsed.positionals[0]
        if id.trimmingCharacters(in: .whitespaces).isEmpty { throw parsed.usageError("The CA ID is empty") }
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let info: CAInfo
        do {
            info = try TeamCAStore(configDirectory: context.paths.configDirectory).remove(matching: id)
        } catch {
            throw CLIError(TerminalText.safe(error.description))
        }
        context.console.line("No longer trusting the team CA \"\(TerminalText.safe(info.displayName))\".")
        context.console.line("  SHA-256 \(info.fingerprint.hex)")
        return ExitCode.success
    }
}
