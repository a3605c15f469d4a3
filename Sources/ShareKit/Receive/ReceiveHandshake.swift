import ShareTLS
import ShareTransport
import ShareWire

/// The first stage of an incoming connection: the TLS handshake under the offer deadline (a
/// ``Watchdog``), then the answer to the sender's HELLO once its key is judged (``ReceiveGate``)
/// and the connection has its slot (``Admission``).
///
/// Used by the connection's own thread only.
final class ReceiveHandshake {
    let socket: TCPSocket
    let context: TLSContext
    let configuration: ReceiverConfiguration
    let events: ReceiverEvents
    let gate: ReceiveGate
    let control: ConnectionControl
    /// The name this receiver is published under now (it changes after a DNS-SD collision).
    let currentName: @Sendable () -> String
    /// The receiver's connection slots, and this connection's place in them.
    let admission: Admission
    let admissionID: Int

    /// How the sender's key was judged, once it said HELLO.
    private(set) var judgement: ReceiveGate.Judgement?
    /// Ends connections that have not made their offer in time (disarmed once they have).
    private var watchdog: Watchdog?

    /// What the HELLO is answered with (``ReceiverSession/answerHello(name:features:flags:refusal:)``).
    struct HelloAnswer {
        var name: String
        var features: HelloFeatures = []
        var flags: HelloFlags = []
        var refusal: Decision?
    }

    init(
        socket: TCPSocket, context: TLSContext, configuration: ReceiverConfiguration, events: ReceiverEvents,
        gate: ReceiveGate, control: ConnectionControl, currentName: @escaping @Sendable () -> String,
        admission: Admission, admissionID: Int
    ) {
        self.socket = socket
        self.context = context
        self.configuration = configuration
        self.events = events
        self.gate = gate
        self.control = control
        self.currentName = currentName
        self.admission = admission
        self.admissionID = admissionID
    }

    var slowReason: String {
        "the peer did not complete its TLS handshake and offer within \(configuration.offerDeadline.components.seconds) seconds"
    }

    /// Whether the offer deadline ended the connection.
    var deadlinePassed: Bool { watchdog?.fired == true }

    /// Arms the offer deadline and accepts the TLS handshake; reports a refused connection and
    /// returns nil when the handshake fails.
    func accept() -> SecureConnection? {
        let socket = self.socket
        let watchdog = Watchdog(after: configuration.offerDeadline) { socket.shutdown() }
        self.watchdog = watchdog
        let connection: SecureConnection
        TestPause.at("handshake")
        do {
            connection = try SecureConnection.accept(socket, context: context, handshakeTimeout: configuration.handshakeTimeout)
        } catch {
            let reason = control.droppedReason ?? (watchdog.fired ? slowReason : error.description)
            events.finished(.refused(peerAddress: socket.remoteDescription, reason: reason))
            return nil
        }
        connection.rateLimit = configuration.rateLimit.map { RateLimiter(bytesPerSecond: $0) }
        return connection
    }

    /// Disarms the offer deadline: the offer arrived, or the connection ends.
    func disarm() {
        watchdog?.cancel()
    }

    /// Answers the sender's HELLO: its key is judged first (blocked? policy? busy?), and only a
    /// sender that may make an offer is told to go on. The flags say whether a person here decides
    /// and whether the code is compared (docs/PROTOCOL.md §6).
    func answer(_ peer: Hello, over connection: SecureConnection) -> HelloAnswer {
        TestPause.at("offer")
        let judgement = gate.evaluate(
            name: peer.name, fingerprint: connection.peerFingerprint,
            caTrustedBy: peerTrustedBy(connection)?.displayName)
        self.judgement = judgement
        let name = currentName()
        if case .refuse(let decision) = judgement.verdict {
            return HelloAnswer(name: name, refusal: decision)
        }
        let known = judgement.pinned != nil || peerTrustedBy(connection) != nil
        admission.identified(admissionID, known: known)
        if let busy = admission.busy(admissionID, known: known) {
            return HelloAnswer(name: name, refusal: busy)
        }
        var flags: HelloFlags = []
        if case .ask = judgement.verdict, events.canAsk() {
            flags.insert(.attended)
            let verifiedHere = judgement.pinned != nil || peerTrustedBy(connection) != nil
            if peer.flags.contains(.attended) && (!verifiedHere || peer.flags.contains(.compare)) {
                flags.insert(.compare)
            }
        }
        let features: HelloFeatures = configuration.decodesZstd ? [.resume, .zstd] : [.resume]
        return HelloAnswer(name: name, features: features, flags: flags)
    }

    /// Takes a transfer slot for the offer (or pairing) just made; the refusal when there is none.
    func startTransfer(over connection: SecureConnection) -> Decision? {
        admission.startTransfer(admissionID, known: judgement?.pinned != nil || peerTrustedBy(connection) != nil)
    }

    /// The team CA that vouches for the sender, if it is still trusted.
    func peerTrustedBy(_ connection: SecureConnection) -> CAInfo? {
        guard let authority = connection.peerTrustedBy else { return nil }
        if let check = configuration.isStillTrusted, !check(authority) { return nil }
        return authority
    }
}
