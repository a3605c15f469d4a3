public import ShareTLS

extension Sender {
    /// ``sendAsync(_:toFirstOf:identity:options:refresh:progress:)`` to where `destination` goes:
    /// its addresses, best first, and after a failed connection, where a peer found by name is
    /// then (looked up again by its key on `node`'s networks; HOST:PORT stays as it is).
    public static func sendAsync(
        _ prepared: PreparedSend, to destination: SendDestination, identity: Identity, node: LocalNode, options: SendOptions,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(SendError) -> SendReport {
        try await sendAsync(
            prepared, toFirstOf: destination.endpoints, identity: identity, options: options,
            refresh: { await destination.refreshedEndpoints(node: node) }, progress: progress)
    }

    /// ``pairAsync(toFirstOf:identity:options:)`` with the receiver `destination` names.
    public static func pairAsync(
        with destination: SendDestination, identity: Identity, options: SendOptions
    ) async throws(SendError) -> PairingResult {
        try await pairAsync(toFirstOf: destination.endpoints, identity: identity, options: options)
    }
}
