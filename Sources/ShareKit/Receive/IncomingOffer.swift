public import ShareDocuments
public import ShareTLS
import ShareUnicode

/// An offer waiting for the receiver's decision.
public struct IncomingOffer: Sendable {
    /// The sender's device name, as it calls itself (escape before printing).
    public var peerName: String
    /// The sender's fingerprint (its identity, verified by TLS).
    public var peerFingerprint: Fingerprint
    /// The sender's address.
    public var peerAddress: String
    /// What it offers.
    public var manifest: Manifest
    /// The code both sides show when they compare it (docs/PROTOCOL.md §14).
    public var verificationCode: String
    /// The name this machine verified the sender under, when it is verified (its key is pinned).
    public var pinnedName: String?
    /// Whether the code is compared with this offer: a person on each side sees it (docs/PROTOCOL.md §6).
    public var comparesCode: Bool = false
    /// Whether a person at the sender takes part (it could show a code).
    public var senderAttended: Bool = false
    /// A verified peer whose name this (unverified) sender claims: a different machine using a
    /// known name, flagged as such.
    public var claimsNameOf: TrustStore.Peer? = nil
    /// The team CA that vouches for the sender, when one the user added issued its certificate
    /// (``ReceiverConfiguration/trustAnchors``): such a sender may be accepted without a verification
    /// code. Its identity is still ``peerFingerprint``.
    public var peerTrustedBy: CAInfo? = nil
    /// Why a sender whose certificate leads to a team CA is nevertheless not CA-trusted (e.g. the CA
    /// expired), for messages.
    public var peerCATrustProblem: String? = nil

    /// The LocalSend device the offer came from, when it came over LocalSend rather than share's own
    /// protocol: ``peerFingerprint`` is then not a key anybody proved (it stands for the fingerprint
    /// the device claims), the sender is never verified, and no code is compared.
    public var localSend: LocalSendOrigin? = nil

    /// Whether the sender's name mixes scripts (Latin with Cyrillic, say), as look-alike names do.
    public var nameMixesScripts: Bool { NameLookalikes.mixesScripts(peerName) }

    /// Whether this machine verified the sender before.
    public var isVerified: Bool { pinnedName != nil }

    /// Whether the sender is new here: neither pinned nor vouched for by a team CA.
    public var isFirstContact: Bool { pinnedName == nil && peerTrustedBy == nil }
}
