/// Why a send to a LocalSend device did not complete: what a person reads, and a code for scripts.
public struct LocalSendError: Error, Sendable, CustomStringConvertible {
    /// What happened and what to do.
    public var description: String
    /// The outcome for scripts (docs/JSON.md): `declined`, `pinRequired`, `busy`, `tooManyRequests`,
    /// `identityMismatch`, `noAnswer`, `unreachable`, `cancelled`, `failed`.
    public var outcome: String
    /// The certificate fingerprint the device presented, when a connection got that far.
    public var fingerprint: String?

    /// An error with its message and outcome code.
    public init(_ description: String, outcome: String = "failed") {
        self.description = description
        self.outcome = outcome
    }

    /// The message for an HTTP status a LocalSend device answered `request` with (the spec's codes,
    /// and 422, which receivers answer to a file whose SHA-256 did not match).
    static func status(_ status: Int, device: String, request: String) -> LocalSendError {
        switch status {
        case 401: LocalSendError("\(device) asks for a PIN, or the PIN was wrong: give it with --pin", outcome: "pinRequired")
        case 403:
            request == "prepare-upload"
                ? LocalSendError("\(device) declined the files", outcome: "declined")
                : LocalSendError("\(device) refused the upload (its session ended, or it was cancelled there)", outcome: "cancelled")
        case 409: LocalSendError("\(device) is busy with another transfer; try again when it is done", outcome: "busy")
        case 429: LocalSendError("\(device) refuses for now after too many attempts (wrong PINs); try again in a minute", outcome: "tooManyRequests")
        case 422: LocalSendError("\(device) found that a file did not arrive intact (SHA-256 mismatch); send it again")
        default: LocalSendError("\(device) answered \(request) with HTTP \(status)")
        }
    }
}
