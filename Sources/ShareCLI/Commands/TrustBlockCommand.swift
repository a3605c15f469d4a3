import ShareKit

/// `share trust block PEER`: refuses a peer before any prompt.
struct TrustBlockCommand: ShareCommand {
    static let spec = CommandSpec(
        name: "block",
        abstract: "Refuse a peer from now on, before any prompt.",
        discussion: """
            PEER is the name of a verified peer, or its fingerprint: all 64 hex digits, or at least the \
            first 16, as 'share receive' prints them with each offer ('3927 A1B2 C3D4 E5F6'; spaces and \
            case do not matter). A prefix that matches a verified peer blocks that peer; otherwise it \
            blocks every key that starts with it (no one can make a key to match 16 digits on purpose).
            """,
        arguments: [ArgumentSpec(name: "peer", help: "A verified peer's name, or a fingerprint (16 hex digits or more).")]
    )

    let query: String

    init(_ parsed: ParsedArguments) throws(UsageError) {
        query = parsed.positionals[0]
    }

    func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
        let store = try TrustCommandSupport.load(context.paths)
        let named = store.peers(named: query)
        let fingerprint: String
        let name: String
        if named.count == 1 {
            (fingerprint, name) = (named[0].fingerprint, named[0].name)
        } else if named.count > 1 {
            throw CLIError(
                "several verified peers are called '\(TerminalText.safe(query))' ("
                    + named.map { TrustCommandSupport.short($0.fingerprint) }.joined(separator: ", ") + "); give a fingerprint")
        } else if let hex = TrustStore.hexDigits(of: query) {
            guard hex.count >= TrustStore.minimumBlockPrefix else {
                throw CLIError(
                    "'\(TerminalText.safe(query))' is too short: give at least \(TrustStore.minimumBlockPrefix) hex digits of the "
                        + "fingerprint, as 'share receive' prints them with each offer (e.g. '3927 A1B2 C3D4 E5F6')")
            }
            guard hex.count <= 64 else { throw CLIError("'\(TerminalText.safe(query))' is longer than a fingerprint (64 hex digits)") }
            let matches = store.peers.filter { $0.fingerprint.hasPrefix(hex) }
            if matches.count > 1 {
                throw CLIError("'\(TerminalText.safe(query))' matches several verified peers; give more of the fingerprint")
            }
            (fingerprint, name) = matches.first.map { ($0.fingerprint, $0.name) } ?? (hex, "")
        } else {
            throw CLIError(
                "'\(TerminalText.safe(query))' is neither a verified peer's name nor a fingerprint (at least "
                    + "\(TrustStore.minimumBlockPrefix) hex digits, as 'share receive' shows with each offer)")
        }
        try TrustCommandSupport.update(context.paths) { $0.block(fingerprint: fingerprint, name: name) }
        let what = fingerprint.count == 64 ? "" : " and every key that starts with it"
        context.console.line(
            "Blocked \(name.isEmpty ? "" : "\"\(TerminalText.safe(name))\" ")(\(TrustCommandSupport.short(fingerprint))\(what)): "
                + "it is refused before any prompt.")
        return ExitCode.success
    }
}
