import Foundation
import ShareDocuments
public import ShareTLS
public import ShareTransport
public import ShareWire
import ShareSystem

/// Sends prepared documents to one receiver over TLS (docs/PROTOCOL.md §5).
///
/// > Warning: ``send(_:toFirstOf:identity:options:progress:)`` blocks; call it from a dedicated
/// > thread (``sendAsync(_:toFirstOf:identity:options:progress:)`` does).
public enum Sender {
    /// Sends `prepared` to `endpoint` and returns what the receiver confirmed.
    /// - Throws: ``SendError``.
    public static func send(
        _ prepared: PreparedSend, to endpoint: Endpoint, identity: Identity, options: SendOptions,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) throws(SendError) -> SendReport {
        try send(prepared, toFirstOf: [endpoint], identity: identity, options: options, progress: progress)
    }

    /// Sends `prepared` to the first of `endpoints` (one peer's addresses, best first) that answers,
    /// and returns what the receiver confirmed.
    /// - Parameters:
    ///   - progress: called on the sending thread, at most ten times a second and once at the end.
    /// - Throws: ``SendError``.
    public static func send(
        _ prepared: PreparedSend, toFirstOf endpoints: [Endpoint], identity: Identity, options: SendOptions,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) throws(SendError) -> SendReport {
        let (connection, options, trust) = try SendHandshake.open(endpoints, identity: identity, options: options)
        defer { SendHandshake.close(connection, options: options) }
        var run = SendRun(prepared: prepared, connection: connection, options: options, trust: trust, progress: progress)
        let (receipt, verification) = try run.execute()
        return run.report(receipt, verification: verification)
    }

    /// Asks the receiver at the first of `endpoints` to verify identities (PAIR): both users
    /// compare the verification code; when both confirm, each side remembers the other.
    /// - Parameter options: its ``SendOptions/interaction`` asks this side's user (required).
    public static func pair(
        toFirstOf endpoints: [Endpoint], identity: Identity, options: SendOptions
    ) throws(SendError) -> PairingResult {
        let (connection, options, trust) = try SendHandshake.open(endpoints, identity: identity, options: options)
        defer { SendHandshake.close(connection, options: options) }
        let wasVerified = trust.peer(connection.peerFingerprint)
        var run = SendRun(prepared: nil, connection: connection, options: options, trust: trust, progress: nil)
        _ = try run.execute()
        return PairingResult(
            name: run.peerName, fingerprint: connection.peerFingerprint, endpoint: connection.endpoint,
            verifiedBefore: wasVerified)
    }

    /// ``pair(toFirstOf:identity:options:)`` on a dedicated thread.
    public static func pairAsync(
        toFirstOf endpoints: [Endpoint], identity: Identity, options: SendOptions
    ) async throws(SendError) -> PairingResult {
        try await BlockingWork.run("share.pair") { () throws(SendError) -> PairingResult in
            try pair(toFirstOf: endpoints, identity: identity, options: options)
        }
    }

    /// ``send(_:toFirstOf:identity:options:progress:)`` on a dedicated thread; with
    /// ``SendOptions/retry``, a failed connection is followed by new ones (``RetryPolicy``) to the
    /// addresses `endpoints` gives then (`refresh`, e.g. the peer looked up again, or the same ones),
    /// each continuing from what the receiver holds.
    public static func sendAsync(
        _ prepared: PreparedSend, toFirstOf endpoints: [Endpoint], identity: Identity, options: SendOptions,
        refresh: (@Sendable () async -> [Endpoint])? = nil, progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(SendError) -> SendReport {
        var attempt = 1
        var addresses = endpoints
        var firstFailure: ContinuousClock.Instant?
        var accepted = false
        var options = options
        let accepting = AcceptanceFlag()
        options.acceptance = accepting
        while true {
            let current = addresses
            let attemptOptions = options
            do {
                var report = try await BlockingWork.run("share.send") { () throws(SendError) -> SendReport in
                    try send(prepared, toFirstOf: current, identity: identity, options: attemptOptions, progress: progress)
                }
                report.attempts = attempt
                return report
            } catch {
                accepted = accepted || accepting.isSet
                let failedAt = ContinuousClock.now
                let start = firstFailure ?? failedAt
                firstFailure = start
                guard let policy = options.retry, error.isRetryable(afterAcceptance: accepted),
                    options.cancellation?.isCancelled != true
                else { throw error }
                let remaining = policy.retryFor - (failedAt - start)
                let delay = policy.delay(beforeAttempt: attempt + 1)
                guard remaining > delay else { throw error }
                attempt += 1
                options.onReconnect?(Reconnection(attempt: attempt, reason: error.description, delay: delay, remaining: remaining))
                if await pause(delay, cancellation: options.cancellation) { throw .cancelled(receiverTold: nil) }
                if let refresh {
                    let fresh = await refresh()
                    if !fresh.isEmpty { addresses = fresh }
                }
            }
        }
    }

    /// Waits `delay`; returns true when the user cancelled meanwhile.
    private static func pause(_ delay: Duration, cancellation: SendCancellation?) async -> Bool {
        let end = ContinuousClock.now + delay
        while ContinuousClock.now < end {
            if cancellation?.isCancelled == true { return true }
            try? await Task.sleep(for: min(.milliseconds(100), end - .now))
        }
        return cancellation?.isCancelled == true
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
