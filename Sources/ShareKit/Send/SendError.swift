import ShareDocuments
public import ShareTLS
public import ShareTransport
public import ShareWire

/// Why a send did not complete.
public enum SendError: Error, Sendable, CustomStringConvertible {
    /// A path given to send does not exist or cannot be read.
    case cannotRead(path: String, reason: String)
    /// A path is of a kind share does not send (device, FIFO, socket).
    case unsupportedFile(path: String, kind: String)
    /// A symbolic link inside a folder points outside it.
    case linkLeavesFolder(path: String, target: String)
    /// What was asked cannot be offered (two items with one name, a name the protocol refuses, a limit).
    case cannotOffer(String)
    /// The peer could not be reached or the connection failed.
    case transport(TransportError)
    /// The receiver presented another key than the one expected; nothing was sent.
    case identityMismatch(endpoint: String, expected: ExpectedKey, actual: Fingerprint)
    /// The receiver declined the offer.
    case declined(Decision)
    /// The transfer started but failed.
    case failed(TransferFailure)
    /// The local identity could not be loaded.
    case identity(String)
    /// `share trust verify`: the receiver cannot show a verification code (nobody there to see it).
    case cannotVerify(name: String)
    /// The user said the codes differ; nothing was sent.
    case codesDiffer(name: String)
    /// The user cancelled (Ctrl-C): `receiverTold` says whether the receiver got this side's ERROR
    /// `cancelled` (nil: no connection was open).
    case cancelled(receiverTold: Bool?)
    /// The trust store cannot be read (nothing is sent while it is damaged).
    case trustStore(String)

    /// What happened, as a code for scripts (docs/JSON.md): `declined`, `noAnswer`, `nobodyToAsk`,
    /// `busy`, `unreachable`, `identityMismatch`, `cancelled` or `failed`.
    public var outcome: String {
        switch self {
        case .declined(let decision):
            switch decision.code {
            case .noAnswer: "noAnswer"
            case .nobodyToAsk: "nobodyToAsk"
            case .busy: "busy"
            default: "declined"
            }
        case .transport(let error): error.isUnreachable ? "unreachable" : "failed"
        case .identityMismatch: "identityMismatch"
        case .cancelled, .codesDiffer: "cancelled"
        case .failed(let failure) where failure.code == .cancelled: "cancelled"
        case .failed(let failure) where failure.code == .busy: "busy"
        default: "failed"
        }
    }

    /// Whether another connection may succeed where this one failed, once the receiver accepted
    /// the offer (`afterAcceptance`; before that a failure is reported at once: nobody receiving,
    /// busy, declined, or stopped while asking): the network or the receiver went away, stalled,
    /// stopped or restarted, was busy, or its disk was full. Never for a decision, a key, a
    /// cancellation by this side's user, or data that was wrong.
    public func isRetryable(afterAcceptance: Bool) -> Bool {
        guard afterAcceptance else { return false }
        switch self {
        case .transport(let error):
            if case .tls(_, let tls) = error {
                switch tls {
                case .connectionClosed, .connectionReset, .timedOut, .system: return true
                default: return false
                }
            }
            if case .invalidEndpoint = error { return false }
            return true
        case .failed(.connectionLost): return true
        case .failed(.local(let error)): return error.code == .timedOut
        case .failed(.remote(let error)):
            return [.timedOut, .cancelled, .busy, .receiverFailed].contains(error.code)
        case .declined(let decision):
            return decision.code == .busy || decision.code == .insufficientSpace
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .cannotRead(let path, let reason): "cannot read '\(DisplayText.escape(path))': \(reason)"
        case .unsupportedFile(let path, let kind): "'\(DisplayText.escape(path))' is a \(kind); share sends only files, folders and links"
        case .linkLeavesFolder(let path, let target):
            "the symbolic link '\(DisplayText.escape(path))' points to '\(DisplayText.escape(target))', outside the folder "
                + "being sent; send what it points to with -L, leave it out with --exclude, or remove it"
        case .cannotOffer(let reason): reason
        case .transport(let error): error.description
        case .identityMismatch(let endpoint, .advertised(let prefix, let name), let actual):
            "the receiver at \(endpoint) presented the key \(actual.prefix(16)), not the \(prefix.prefix(16))… that "
                + "\"\(DisplayText.escape(name))\" advertises: it may be impersonating that peer; nothing was sent"
        case .identityMismatch(let endpoint, .verified(let fingerprint, let name), let actual):
            "the receiver at \(endpoint) presented the key \(actual.prefix(16)), but the peer you verified as "
                + "\"\(DisplayText.escape(name))\" has the key \(fingerprint.prefix(16)): another machine answers there, or it "
                + "was reinstalled. Nothing was sent, and your trust in \"\(DisplayText.escape(name))\" is untouched. If it was "
                + "reinstalled, run 'share trust remove \(fingerprint.prefix(16))' and verify it again"
        case .declined(let decision) where decision.code == .busy:
            decision.message.isEmpty
                ? "the receiver is busy; try again later"
                : decision.message.hasPrefix("the receiver")
                    ? DisplayText.escape(decision.message) : "the receiver is busy: " + DisplayText.escape(decision.message)
        case .declined(let decision):
            "the receiver declined the offer: "
                + (decision.message.isEmpty ? decision.code.description : DisplayText.escape(decision.message))
        case .failed(let failure): "the transfer failed: \(failure)"
        case .identity(let reason): reason
        case .cannotVerify(let name):
            "\"\(DisplayText.escape(name))\" cannot show a verification code: it decides without asking a person "
                + "(--accept everyone or trusted, or no terminal). Ask its user to run 'share receive' on a terminal "
                + "(with --accept ask, the default), then verify again"
        case .codesDiffer(let name):
            "you said \"\(DisplayText.escape(name))\" shows another code: someone may be intercepting the connection. "
                + "Nothing was sent, and nothing was remembered"
        case .cancelled(receiverTold: true?): "cancelled; the receiver was told, and nothing was placed"
        case .cancelled(receiverTold: false?):
            "cancelled; the receiver could not be told (it was taking no data), so it ends the transfer when it "
                + "notices the silence"
        case .cancelled(receiverTold: nil): "cancelled; no connection was open, so the receiver was not told"
        case .trustStore(let reason): reason
        }
    }
}
