import ShareKit

/// Turns what the user typed for `--to` (or `share trust verify`) into where each target goes
/// (ShareKit's ``SendDestination``, which holds the rules), or lets the user choose receivers on
/// the terminal, and says why a target cannot be sent to as the command's error.
enum PeerTargets {
    /// Resolves every target, browsing only when one is not an address.
    /// - Throws: exit 69 when a name needs avahi-daemon and it is unavailable; 1 for an unknown or
    ///   ambiguous name, or a verified name that another machine now answers to.
    static func resolve(_ targets: [String], node: LocalNode) async throws(CLIError) -> [SendDestination] {
        var results: [SendDestination] = []
        for result in await resolveEach(targets, node: node) {
            switch result {
            case .success(let destination): results.append(destination)
            case .failure(let error): throw error
            }
        }
        return results
    }

    /// Resolves `targets` each on its own (``resolveEach(_:node:)``); with none, lets the user
    /// choose receivers on the terminal (``PeerPicker``), each sent to the service and key of its
    /// row (``SendDestination/chosen(_:)``). Returns the targets (the chosen receivers' names) and
    /// where each goes: none when the user chose not to send.
    static func resolveOrPick(
        _ targets: [String], console: Console, node: LocalNode
    ) async throws(CLIError) -> (
        targets: [String], destinations: [Result<SendDestination, CLIError>], devices: [LocalSendPeer]
    ) {
        guard targets.isEmpty else { return (targets, await resolveEach(targets, node: node), []) }
        try requireTerminal(console)
        let (peers, devices) = try await PeerPicker.pick(console: console, node: node)
        // A row is a key: each goes to the service chosen and must present the key its row showed,
        // whatever its name means now (two machines may have swapped `vm` and `vm #2`); a LocalSend
        // device must present the certificate its row announced.
        return (peers.map(\.name), peers.map { SendDestination.chosen($0).mapError(error) }, devices)
    }

    /// Choosing receivers needs a terminal: without one, a missing `--to` is a usage error.
    static func requireTerminal(_ console: Console) throws(CLIError) {
        guard console.stdinIsTerminal && console.stderrIsTerminal else {
            throw CLIError(
                usage: UsageError(
                    message: "Missing expected option '--to <peer>' (there is no terminal to choose receivers on)",
                    commandPath: ["share", "send"]))
        }
    }

    /// Resolves every target on its own: one unknown target does not stop the others.
    static func resolveEach(_ targets: [String], node: LocalNode) async -> [Result<SendDestination, CLIError>] {
        await SendDestination.resolveEach(targets, node: node).map { $0.mapError(error) }
    }

    /// The command's error for a target that cannot be sent to: exit 69 when a service was missing.
    private static func error(_ failure: SendDestinationError) -> CLIError {
        CLIError(
            failure.message, exitCode: failure.isServiceUnavailable ? ExitCode.unavailable : ExitCode.failure,
            outcome: failure.outcome)
    }
}
