import ShareKit

/// `share trust remove PEER`: forgets a verified (or blocked) peer.
struct TrustRemoveCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "remove",
        abstract: "Forget a verified or blocked peer.",
        discussion: "After a peer's key changed (it was reinstalled), remove it here, then verify it again.",
        arguments: [ArgumentSpec(name: "peer", help: "Its name, or a prefix of its fingerprint (at least 8 hex digits; spaces allowed).")]
    )

    let query: String

    init(_ parsed: ParsedArguments) throws(UsageError) {
        query = parsed.positionals[0]
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let store = try TrustCommandSupport.load(context.paths)
        let fingerprint = try TrustCommandSupport.single(query, in: store)
        let verified = store.peers.first { $0.fingerprint == fingerprint }
        let blocked = store.blocked.first { $0.fingerprint == fingerprint }
        try TrustCommandSupport.update(context.paths) { $0.remove(fingerprint: fingerprint) }
        let name = verified?.name ?? blocked?.name ?? ""
        let who = name.isEmpty ? "" : "\"\(TerminalText.safe(name))\" "
        let key = TrustCommandSupport.short(fingerprint)
        if verified != nil {
            context.console.line("Forgot \(who)(\(key)): it is no longer verified.")
        } else {
            context.console.line("No longer blocking \(name.isEmpty ? key : who + "(" + key + ")").")
        }
        return ExitCode.success
    }
}
