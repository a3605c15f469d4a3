import Foundation
import ShareDocuments
import ShareTLS
import ShareTransport
import ShareWire

/// The offer stage of an incoming connection: decides on the sender's offer (the policy, free
/// space and what the folder can hold, the user's answer) or on its pairing request, and pins the
/// sender once both users compared the code.
///
/// The question itself is asked through the `ask` its callers pass in: the connection keeps being
/// read while a person decides. Used by the connection's own thread only.
final class OfferDecision {
    let configuration: ReceiverConfiguration
    let events: ReceiverEvents
    let control: ConnectionControl
    let gate: ReceiveGate
    let handshake: ReceiveHandshake
    /// This receiver's own fingerprint (for verification codes).
    let localFingerprint: Fingerprint

    /// The offer made, once its last ENTRIES arrived.
    private(set) var offer: IncomingOffer?
    /// The pairing request made, instead of an offer.
    private(set) var pairing: PairingRequest?
    /// Whether both users compared the code during this transfer.
    private(set) var verifiedNow = false
    /// The sender's user said the codes differ: nothing of the offer is kept.
    private(set) var codesRejected = false

    /// Asks the user (on another thread) while the connection keeps being read; nil when the
    /// transfer ended meanwhile.
    typealias Ask = (@escaping @Sendable (PromptTicket) -> Decision) -> Decision?

    /// What became of an offer or a pairing request.
    enum Verdict {
        /// The decision to send as it is (a refusal, or a pairing's answer).
        case decided(Decision)
        /// The offer is accepted: its staging area is prepared next. `resumable` is the partial
        /// transfer the offer is, when it can be continued later (RESUME).
        case accepted(Decision, resumable: PartialTransfer?)
        /// This receiver is stopping.
        case stopped
        /// The transfer ended while the user was asked.
        case ended
    }

    init(
        configuration: ReceiverConfiguration, events: ReceiverEvents, control: ConnectionControl, gate: ReceiveGate,
        handshake: ReceiveHandshake, localFingerprint: Fingerprint
    ) {
        self.configuration = configuration
        self.events = events
        self.control = control
        self.gate = gate
        self.handshake = handshake
        self.localFingerprint = localFingerprint
    }

    /// A pairing request: only a user who compares the codes can confirm it.
    func pair(_ peer: Hello, over connection: SecureConnection, ask: Ask) -> Verdict {
        let request = pairingRequest(peer, over: connection)
        if let busy = handshake.startTransfer(over: connection) {
            return .decided(busy)
        }
        let events = self.events
        guard let decision = ask({ events.pair(request, $0) }) else { return .ended }
        if control.isStopping { return .stopped }
        return .decided(decision)
    }

    /// Records the pairing request `peer` made (also one declined without asking anyone).
    @discardableResult
    func pairingRequest(_ peer: Hello, over connection: SecureConnection) -> PairingRequest {
        let judgement = handshake.judgement
        let request = PairingRequest(
            peerName: peer.name, peerFingerprint: connection.peerFingerprint, peerAddress: connection.endpoint,
            verificationCode: VerificationCode.between(connection.peerFingerprint, localFingerprint),
            pinnedName: judgement?.pinned?.name, claimsNameOf: judgement?.namesake)
        pairing = request
        return request
    }

    /// Applies the policy, checks free space and what the folder can hold, and asks the user when
    /// the policy says so. `showsCode` and `resumes` are what the HELLOs agreed.
    func decide(
        _ peer: Hello, _ manifest: Manifest, over connection: SecureConnection, showsCode: Bool, resumes: Bool,
        ask: Ask
    ) -> Verdict {
        guard let judgement = handshake.judgement else { return .ended }
        TestPause.at("prompt")
        let fingerprint = connection.peerFingerprint
        let offer = IncomingOffer(
            peerName: peer.name, peerFingerprint: fingerprint, peerAddress: connection.endpoint, manifest: manifest,
            verificationCode: VerificationCode.between(fingerprint, localFingerprint), pinnedName: judgement.pinned?.name,
            comparesCode: showsCode, senderAttended: peer.flags.contains(.attended),
            claimsNameOf: judgement.namesake, peerTrustedBy: handshake.peerTrustedBy(connection),
            peerCATrustProblem: connection.peerCATrustProblem)
        self.offer = offer
        if let busy = handshake.startTransfer(over: connection) {
            return .decided(busy)
        }
        // With RESUME, the transfer can be continued later: the partial transfer this offer is (kept
        // from an earlier connection of the same key, when its user accepted it then).
        let offerID = OfferIdentity.of(manifest)
        var resumable: PartialTransfer?
        if resumes {
            let now = Date()
            resumable = PartialTransfer(
                id: PartialStore.areaName(fingerprint: fingerprint, offerID: offerID), senderName: peer.name,
                senderFingerprint: fingerprint.hex, offerID: Hex.encode(offerID), items: manifest.items.map(\.name),
                fileCount: manifest.fileCount, totalBytes: manifest.totalBytes, acceptedAt: now, updatedAt: now)
        }
        let kept = resumable.flatMap { configuration.partials.kept($0) }
        if let kept { resumable?.acceptedAt = kept.acceptedAt }
        let done = resumable.flatMap { configuration.partials.completed($0) }
        // The same documents from the same key, accepted within the keep window, are not asked again
        // (unless the codes are to be compared now: that needs the person).
        let askAgain = (kept == nil && done == nil) || showsCode
        if case .ask = judgement.verdict, askAgain,
            let refusal = gate.promptRefusal(
                fingerprint: fingerprint, address: connection.endpoint, verified: judgement.verified)
        {
            return .decided(Decision(.busy, message: refusal.description))
        }
        if done == nil, let refusal = Self.storageRefusal(manifest, held: kept?.heldBytes ?? 0, configuration: configuration) {
            return .decided(refusal)
        }
        let decision: Decision
        if case .ask = judgement.verdict, askAgain {
            let events = self.events
            guard let answer = ask({ events.decide(offer, $0) }) else { return .ended }
            decision = answer
        } else {
            decision = .accept
        }
        if control.isStopping { return .stopped }
        guard decision.isAccepted else { return .decided(decision) }
        return .accepted(decision, resumable: resumable)
    }

    /// Why a receiver with `configuration` cannot store `manifest` as it is, if it cannot: not enough
    /// free space (beyond the `held` bytes it has already), or names its folder cannot hold apart.
    /// Asked for every offer, share's own and LocalSend's.
    static func storageRefusal(_ manifest: Manifest, held: UInt64 = 0, configuration: ReceiverConfiguration) -> Decision? {
        // Data is staged in the inbox; when the receive folder is on another filesystem, documents
        // placed there are copied once more.
        if let shortfall = FreeSpace.shortfall(
            for: manifest.totalBytes - min(held, manifest.totalBytes), in: [configuration.inbox, configuration.destination],
            maximumMargin: configuration.freeSpaceMargin)
        {
            return Decision(.insufficientSpace, message: shortfall)
        }
        if let clash = manifest.caseCollisions.first, let probe = try? StagingArea(root: configuration.inbox) {
            defer { probe.discard() }
            if probe.ignoresCase() {
                let more = manifest.caseCollisions.count > 1 ? " (and \(manifest.caseCollisions.count - 1) more such pairs)" : ""
                return Decision(
                    .cannotStore,
                    message: "the receiving folder ignores case, so it cannot hold both '\(DisplayText.escape(clash.first))' and '"
                        + "\(DisplayText.escape(clash.second))'\(more); rename one, or leave one out with --exclude")
            }
        }
        return nil
    }

    /// The sender's user said the codes differ: the question here is withdrawn, and nothing of the
    /// offer will be kept.
    func codesDiffer() {
        codesRejected = true
        control.currentTicket?.withdraw("the sender's user said the verification codes differ")
    }

    /// Both users confirmed the code: the sender is pinned.
    func mutuallyVerified(peerName: String?, over connection: SecureConnection) {
        remember(peerName: peerName, over: connection)
        verifiedNow = handshake.judgement?.pinned == nil
    }

    /// Pins the sender: both users confirmed the code.
    private func remember(peerName: String?, over connection: SecureConnection) {
        guard let directory = configuration.configDirectory, let name = peerName else { return }
        let fingerprint = connection.peerFingerprint
        try? TrustStore.update(in: directory) { $0.pin(fingerprint, name: name, verification: .code) }
    }
}
