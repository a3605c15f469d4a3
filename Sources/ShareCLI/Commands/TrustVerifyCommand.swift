import ShareKit
import ShareTLS

/// `share trust verify PEER`: both users compare the verification code; each side then remembers
/// the other.
struct TrustVerifyCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "verify",
        abstract: "Compare verification codes with a receiver and remember each other.",
        discussion: """
            Connects to PEER (a name seen by 'share peers', a fingerprint prefix, or HOST:PORT), which \
            must run 'share receive' with --accept ask on a terminal. Both sides show the same code; \
            when both users confirm it, each remembers the other as verified. Needs a terminal here too.
            """,
        arguments: [ArgumentSpec(name: "peer", help: "The receiver to verify.")]
    )

    let target: String

    init(_ parsed: ParsedArguments) throws(UsageError) {
        target = parsed.positionals[0]
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let console = context.console
        guard console.stdinIsTerminal && console.stderrIsTerminal else {
            throw CLIError("verifying needs a terminal to compare the code on; run 'share trust verify' in one")
        }
        let node = try NodeLoader.load(context.paths)
        let destination = try await PeerTargets.resolve([target], node: node)[0]
        let prompter = Prompter(console: console)
        var options = SendOptions(deviceName: node.deviceName())
        options.expectedFingerprintPrefix = destination.expectedFingerprintPrefix
        options.configDirectory = context.paths.configDirectory
        options.confirmFirstContact = { contact in prompter.confirm(OfferSummary.describe(contact)) }
        do {
            let result = try await Sender.pairAsync(toFirstOf: destination.endpoints, identity: node.identity, options: options)
            console.line(
                "Verified \"\(TerminalText.safe(result.name))\" (\(result.fingerprint.grouped.prefix(19))): both sides "
                    + "confirmed the code and remember each other.")
            return ExitCode.success
        } catch {
            throw CLIError(error.description)
        }
    }
}
