import ShareKit
import ShareTLS

#if canImport(Glibc)
import Glibc
#endif

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
        let prompter = Prompter(console: console, timeout: EnvironmentWaits(console.environment).prompt)
        var options = SendOptions(deviceName: node.deviceName(), expectedKey: destination.expectedKey)
        options.configDirectory = context.paths.configDirectory
        options.interaction = SendInteraction(
            compareCode: { comparison, ticket in
                let (lines, _) = OfferSummary.describe(comparison)
                return prompter.confirm(lines, OfferSummary.confirmation(comparison), ticket: ticket) == .yes
            },
            waiting: { waiting in
                console.err("Waiting for \"\(TerminalText.safe(waiting.peerName))\" to compare the code…\n")
            })
        let cancellation = SendCancellation()
        options.cancellation = cancellation
        let signals = SignalWatcher(signals: [SIGINT, SIGTERM]) { _ in cancellation.cancel() }
        defer { signals.cancel() }
        do {
            let result = try await Sender.pairAsync(with: destination, identity: node.identity, options: options)
            let again = result.verifiedBefore.map { " (verified before as \"\(TerminalText.safe($0.name))\"; confirmed again)" } ?? ""
            console.line(
                "Verified \"\(TerminalText.safe(result.name))\" (\(OfferSummary.fingerprint(result.fingerprint))): both sides "
                    + "confirmed the code and remember each other\(again).")
            return ExitCode.success
        } catch {
            throw CLIError(error.description)
        }
    }
}
