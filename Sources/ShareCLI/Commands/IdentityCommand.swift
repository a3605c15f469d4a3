import Foundation
import ShareKit
import ShareTLS
import TypeRegistry

/// `share identity`: shows the device name and fingerprint.
struct IdentityCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "identity",
        abstract: "Show this machine's device name and fingerprint.",
        discussion: """
            The fingerprint is the SHA-256 of this machine's public key: it is what identifies the \
            machine to others, whatever its name. The key and a self-signed certificate are created on \
            first use in the config folder ($SHARE_CONFIG_DIR, else $XDG_CONFIG_HOME/share, else \
            ~/.config/share); the key file is readable by you only.
            """,
        options: [.flag("json", help: "Print the identity as JSON.")],
        subcommands: [IdentitySetNameCommand.spec, IdentityCSRCommand.spec, IdentityImportCertCommand.spec]
    )

    let json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        json = parsed.flag("json")
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let node = try NodeLoader.load(context.paths)
        let name = node.deviceName()
        let fingerprint = node.identity.fingerprint
        if json {
            context.console.line(
                JSON.object([
                    ("name", .string(name)),
                    ("fingerprint", .string(fingerprint.hex)),
                    ("fingerprintPrefix", .string(String(fingerprint.hex.prefix(16)))),
                    ("fingerprintGrouped", .string(fingerprint.grouped)),
                    ("configDirectory", .string(context.paths.configDirectory)),
                    ("certificate", Self.certificateJSON(node.identity)),
                ]).pretty())
        } else {
            context.console.line("Name:         \(TerminalText.safe(name))")
            context.console.line("Fingerprint:  \(fingerprint.grouped)")
            context.console.line("Config:       \(DisplayPath.abbreviate(context.paths.configDirectory, home: context.paths.home))")
            if !node.identity.certificateIsSelfSigned {
                // A team CA's certificate is never renewed by share: say when it ends.
                let notAfter = node.identity.notAfter
                let validity = notAfter < Date() ? "EXPIRED on" : "valid until"
                context.console.line(
                    "Certificate:  issued by \(TerminalText.safe(node.identity.certificateIssuer)), \(validity) "
                        + TrustCACommand.day(notAfter))
            }
        }
        return ExitCode.success
    }

    /// The certificate's issuer and dates (a team CA's, or self-signed).
    static func certificateJSON(_ identity: Identity) -> JSON {
        .object([
            ("selfSigned", .bool(identity.certificateIsSelfSigned)),
            ("issuer", .string(identity.certificateIssuer)),
            ("notBefore", .string(TrustCACommand.timestamp(identity.notBefore))),
            ("notAfter", .string(TrustCACommand.timestamp(identity.notAfter))),
        ])
    }
}

/// `share identity set-name NAME`: chooses the device name others see.
struct IdentitySetNameCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "set-name",
        abstract: "Choose the device name other machines see.",
        discussion: "The name is stored in the config folder and used by 'share receive' unless --name is given.",
        arguments: [ArgumentSpec(name: "name", help: "The new device name (at most 63 bytes).")]
    )

    let name: String
    /// Whether spaces around the name were removed.
    let trimmed: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        (name, trimmed) = DeviceName.cleaned(parsed.positionals[0])
        if let problem = DeviceName.problem(with: name) {
            throw parsed.usageError("Invalid device name: \(problem)")
        }
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        // The name in settings.json may be the unusable one this replaces: the identity (which
        // creates the config folder) is loaded without the settings, and the name is not checked.
        do {
            _ = try Identity.loadOrCreate(in: context.paths.configDirectory)
        } catch {
            throw CLIError(error.description)
        }
        try ConfigCommand.update(context.paths, checkingName: false) { (settings: inout NodeSettings) throws(SettingError) in
            settings.name = name
        }
        let note = trimmed ? " (without the spaces around it)" : ""
        context.console.line("Device name set to \"\(TerminalText.safe(name))\"\(note).")
        return ExitCode.success
    }
}

/// Loads the local node, turning failures into CLI errors.
enum NodeLoader {
    static func load(_ paths: SharePaths) throws(CLIError) -> LocalNode {
        do {
            return try LocalNode.load(paths: paths)
        } catch {
            throw CLIError(error.description)
        }
    }
}
