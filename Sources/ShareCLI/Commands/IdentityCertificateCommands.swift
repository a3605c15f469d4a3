import Foundation
import ShareKit
import ShareTLS
import TypeRegistry

/// `share identity csr`: a certificate signing request for this machine's key, for a team CA.
struct IdentityCSRCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "csr",
        abstract: "Make a certificate request for a team CA to sign.",
        discussion: """
            Prints (or writes to --out) a PKCS#10 certificate signing request for this machine's \
            key. It holds the public key and a name only: the private key never leaves this \
            machine. Have your team CA sign it ('share-team-ca issue'), then install the \
            certificate with 'share identity import-cert'. The fingerprint does not change.
            """,
        options: [
            .value("name", "name", help: "The name in the request (default: the device name)."),
            .value("out", "file", help: "Write the request to this file instead of printing it."),
        ]
    )

    let name: String?
    let out: String?

    init(_ parsed: ParsedArguments) throws(UsageError) {
        name = parsed.value("name")
        out = parsed.value("out")
        if let name {
            if name.isEmpty { throw parsed.usageError("The value for '--name' is empty") }
            if name.count > 64 { throw parsed.usageError("The name '\(name)' is longer than 64 characters") }
            if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                throw parsed.usageError("The name contains control characters")
            }
        }
        if out?.isEmpty == true { throw parsed.usageError("The value for '--out' is empty") }
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let node = try NodeLoader.load(context.paths)
        let subject = name ?? node.deviceName()
        let request: String
        do {
            request = try node.identity.certificateSigningRequest(subjectName: subject)
        } catch {
            throw CLIError(error.description)
        }
        guard let out else {
            context.console.out(request)
            return ExitCode.success
        }
        let path = ReceiveCommand.absolute(out)
        do {
            try AtomicFile.write(Data(request.utf8), to: path, mode: 0o644)
        } catch {
            throw CLIError(error.description)
        }
        context.console.line("Wrote the certificate request for \"\(TerminalText.safe(subject))\" to \(TerminalText.safe(out)).")
        context.console.line("  Fingerprint: \(node.identity.fingerprint.grouped)")
        context.console.line("Have your team CA sign it, e.g. share-team-ca issue CA-FOLDER \(TerminalText.safe(out)) node.pem,")
        context.console.line("then install the certificate here with: share identity import-cert node.pem")
        return ExitCode.success
    }
}

/// `share identity import-cert FILE`: installs a certificate a team CA issued for this machine's key.
struct IdentityImportCertCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "import-cert",
        abstract: "Install a certificate a team CA issued for this machine.",
        discussion: """
            FILE is the certificate (PEM) a team CA issued from 'share identity csr'. share checks \
            that it is for this machine's key, valid now, and allowed for both sending and receiving, \
            then replaces the certificate in the config folder; the key and the fingerprint do not \
            change. Machines that trust the same team CA then trust this one without a verification \
            code. A CA-issued certificate is not renewed automatically: ask for a new one before it \
            expires.
            """,
        arguments: [ArgumentSpec(name: "file", help: "The certificate the team CA issued (PEM).")],
        options: [
            .value("chain", "file", help: "CA certificates to present after it (PEM), nearest issuer first."),
            .flag("json", help: "Print the installed certificate as JSON."),
        ]
    )

    let file: String
    let chain: String?
    let json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        file = parsed.positionals[0]
        chain = parsed.value("chain")
        json = parsed.flag("json")
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let pem = try TrustCACommand.readFile(file, what: "a certificate")
        let chainPEM = try chain.map { path throws(CLIError) in try TrustCACommand.readFile(path, what: "a chain") }
        // Creates the identity on first use; a certificate for another key is then refused below.
        _ = try NodeLoader.load(context.paths)
        let identity: Identity
        do {
            identity = try Identity.importCertificate(
                pem: pem, chain: chainPEM.map { [$0] }, in: context.paths.configDirectory,
                source: "The certificate in '\(file)'")
        } catch {
            throw CLIError(TerminalText.safe(error.description))
        }
        let issuer = identity.certificateIssuer
        if json {
            context.console.line(
                JSON.object([
                    ("fingerprint", .string(identity.fingerprint.hex)),
                    ("issuer", .string(issuer)),
                    ("notBefore", .string(TrustCACommand.timestamp(identity.notBefore))),
                    ("notAfter", .string(TrustCACommand.timestamp(identity.notAfter))),
                ]).pretty())
            return ExitCode.success
        }
        context.console.line(
            "Installed the certificate issued by \(TerminalText.safe(issuer)), valid until \(TrustCACommand.day(identity.notAfter)).")
        context.console.line("  Fingerprint (unchanged): \(identity.fingerprint.grouped)")
        if identity.notAfter < Date() + 30 * 86_400 {
            context.console.warning(
                "it expires on \(TrustCACommand.day(identity.notAfter)); ask the team CA for a new one in time (share identity csr)")
        }
        return ExitCode.success
    }
}
