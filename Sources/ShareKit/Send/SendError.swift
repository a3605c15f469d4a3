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
    /// The peer presented a key whose fingerprint does not match what it advertised.
    case identityMismatch(endpoint: String, expectedPrefix: String, actual: Fingerprint)
    /// The receiver declined the offer.
    case declined(Decision)
    /// The transfer started but failed.
    case failed(TransferFailure)
    /// The local identity could not be loaded.
    case identity(String)
    /// The receiver presents a different key for a name this machine verified.
    case identityChanged(name: String, knownFingerprint: String, presented: Fingerprint)
    /// The user did not confirm the verification code.
    case notConfirmed(name: String)
    /// The trust store cannot be read (nothing is sent while it is damaged).
    case trustStore(String)

    public var description: String {
        switch self {
        case .cannotRead(let path, let reason): "cannot read '\(path)': \(reason)"
        case .unsupportedFile(let path, let kind): "'\(path)' is a \(kind); share sends only files, folders and links"
        case .linkLeavesFolder(let path, let target):
            "the symbolic link '\(path)' points to '\(target)', outside the folder being sent; "
                + "remove it or replace it with what it points to"
        case .cannotOffer(let reason): reason
        case .transport(let error): error.description
        case .identityMismatch(let endpoint, let expected, let actual):
            "the receiver at \(endpoint) presented the key \(actual.prefix(16)), not the \(expected) it advertised: "
                + "it may be impersonating that peer; nothing was sent"
        case .declined(let decision):
            "the receiver declined the offer: "
                + (decision.message.isEmpty ? decision.code.description : DisplayText.escape(decision.message))
        case .failed(let failure): "the transfer failed: \(failure)"
        case .identity(let reason): reason
        case .identityChanged(let name, let known, let presented):
            "the key of \"\(DisplayText.escape(name))\" has changed since you verified it (verified "
                + "\(known.prefix(16)), now \(presented.prefix(16))): it may have been reinstalled, or someone may be "
                + "impersonating it. Nothing was sent. If you expected this, run 'share trust remove "
                + "\(known.prefix(16))' and verify it again"
        case .notConfirmed(let name):
            "you did not confirm the verification code of \"\(DisplayText.escape(name))\"; nothing was sent"
        case .trustStore(let reason): reason
        }
    }
}
