import ShareTLS
import ShareTransport
import ShareWire

/// The offer stage of a send: while the receiver (and perhaps its user) decides, this side's user
/// compares the verification code when the receiver shows it; the stage keeps that question, the
/// time the decision may take, how the receiver is known once it accepted, and pins it when both
/// users confirmed the code.
///
/// Used by the sending thread only.
final class SendNegotiation {
    let connection: SecureConnection
    let options: SendOptions
    let trust: TrustStore
    /// A pairing rather than a send.
    let isPairing: Bool
    /// When the offer went out (from the HELLO on).
    private(set) var started = ContinuousClock.now
    /// The question about the code, while the user is asked.
    private var question: (ticket: PromptTicket, answer: PendingAnswer<Bool>)?

    init(connection: SecureConnection, options: SendOptions, trust: TrustStore, isPairing: Bool) {
        self.connection = connection
        self.options = options
        self.trust = trust
        self.isPairing = isPairing
    }

    /// The receiver's pin in this side's trust store, if it has one.
    var pinned: TrustStore.Peer? { trust.peer(connection.peerFingerprint) }

    /// The HELLO went out: the decision's time starts now.
    func start() {
        started = .now
    }

    /// The longest the receiver may take to decide, whether its user is asked (`attended`) or not.
    func limit(attended: Bool) -> Duration {
        attended ? options.decisionTimeout : options.unattendedDecisionTimeout
    }

    /// Signalled when the user answered the question about the code.
    var answerWake: WakeSignal? { question?.answer.wake }

    /// The user's answer about the code, once given.
    var answer: Bool? { question?.answer.value }

    /// The receiver greeted this side (`hello`): asks the user to compare the code when the
    /// receiver shows it, and tells them the receiver is deciding.
    func greeted(_ hello: Hello, interaction: SendInteraction) {
        if hello.flags.contains(.compare) {
            let ticket = PromptTicket()
            let answer = PendingAnswer<Bool>()
            question = (ticket, answer)
            let comparison = CodeComparison(
                peerName: hello.name, pinnedName: pinned?.name, peerFingerprint: connection.peerFingerprint,
                verificationCode: VerificationCode.between(connection.peerFingerprint, localFingerprint),
                isPairing: isPairing)
            BlockingWork.start("share.compare") { answer.set(interaction.compareCode(comparison, ticket)) }
        }
        if !hello.flags.contains(.decided) {
            interaction.waiting(
                WaitingForReceiver(peerName: hello.name, receiverAsksItsUser: hello.flags.contains(.attended)))
        }
    }

    /// Withdraws the question about the code, if it is still asked.
    func withdraw(_ reason: String) {
        question?.ticket.withdraw(reason)
    }

    /// This side's fingerprint, from the TLS context's identity.
    private var localFingerprint: Fingerprint {
        guard let own = options.localFingerprint else { preconditionFailure("Sender sets localFingerprint") }
        return own
    }

    /// How the receiver is known once the offer was accepted (`userAnswer`: this side's user on the code).
    func verification(userAnswer: VerifyResult?) -> PeerVerification {
        if userAnswer == .confirmed { return pinned != nil ? .verified : .confirmedNow }
        if pinned != nil { return .verified }
        if connection.peerTrustedBy != nil { return .teamCA }
        return .unverified(options.interaction == nil ? .senderUnattended : .receiverUnattended)
    }

    /// Remembers the receiver (named `peerName`) as verified (both users compared the code).
    func remember(peerName: String?) {
        guard let directory = options.configDirectory, let name = peerName else { return }
        let fingerprint = connection.peerFingerprint
        try? TrustStore.update(in: directory) { $0.pin(fingerprint, name: name, verification: .code) }
    }
}
