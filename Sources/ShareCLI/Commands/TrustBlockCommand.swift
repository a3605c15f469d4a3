import ShareKit

/// `share trust block PEER`: refuses a peer before any prompt.
struct TrustBlockCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "block",
        abstract: "Refuse a peer from now on, before any prompt.",
        discussion: """
            PEER is the name of a verified peer or a fingerprint (at least 16 hex digits; a receiver \
            shows each sender's fingerprint with its offer, and 'share receive --json' reports it).
            """,
        arguments: [ArgumentSpec(name: "peer", help: "A verified peer's name, or a fingerprint.")]
    )

    let query: String

    init(_ parsed: ParsedArguments) throws(UsageError) {
        query = parsed.positionals[0]
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let store = try TrustCommandSupport.load(context.paths)
        let hex = query.lowercased().filter { $0 != " " && $0 != ":" }
        let fingerprint: String
        let name: String
        if let known = store.peer(named: query) {
            (fingerprint, name) = (known.fingerprint, known.name)
        } else if hex.count == 64, hex.allSatisfy(\.isHexDigit) {
            (fingerprint, name) = (hex, store.peers.first { $0.fingerprint == hex }?.name ?? "")
        } else if let known = store.peers.first(where: { hex.count >= 16 && hex.allSatisfy(\.isHexDigit) && $0.fingerprint.hasPrefix(hex) }) {
            (fingerprint, name) = (known.fingerprint, known.name)
        } else {
            throw CLIError(
                "'\(TerminalText.safe(query))' is neither a verified peer nor a full fingerprint (64 hex digits, "
                    + "as 'share receive' shows with each offer)")
        }
        try TrustCommandSupport.update(context.paths) { $0.block(fingerprint: fingerprint, name: name) }
        context.console.line("Blocked \(name.isEmpty ? "" : "\"\(TerminalText.safe(name))\" ")(\(TrustCommandSupport.short(fingerprint))): it is refused before any prompt.")
        return ExitCode.success
    }
}
