import Foundation
import ShareHTTP
import ShareDocuments
import ShareLocalSend
import ShareTLS
import ShareTransport
import ShareWire
import Synchronization

/// Answers LocalSend senders (phones, other computers running LocalSend) beside share's own
/// receiver: an HTTPS server (LocalSend v2) that takes one session at a time into the same staging
/// area, inbox, type registry, policies and prompts as share's own transfers.
///
/// LocalSend senders present no certificate: nothing proves who they are. Their offers are never
/// from a verified peer (``IncomingOffer/localSend`` says so), are refused under the `trusted`
/// policy, are counted per address by the prompt limiter, and may be asked for a PIN first.
public final class LocalSendReceiver: Sendable {
    /// The configuration it runs with (shared with share's own receiver).
    public let configuration: ReceiverConfiguration
    /// Its options.
    public let options: LocalSendReceiveOptions
    /// The port it listens on (the one picked, when asked for port 0).
    public var port: UInt16 { server.port }
    /// Its LocalSend fingerprint (what LocalSend devices show and pin).
    public var fingerprint: String { identity.fingerprint }
    private let identity: LocalSendIdentity
    private let events: ReceiverEvents
    private let server: HTTPServer
    private let limiter: PromptLimiter
    private let presence: LocalSendPresence?
    private let state: Mutex<State>
    private let stopping = WakeSignal()

    private struct State: Sendable {
        var sessions: LocalSendSessionState
        var pins: LocalSendPinGate
        /// The accepted session's staging and disk thread.
        var inbound: LocalSendInbound?
        /// The address whose prepare-upload is being decided: others are busy meanwhile.
        var deciding: String?
        /// The question being asked about it, withdrawn when the receiver stops.
        var asking: PromptTicket?
    }

    /// Binds the port and prepares TLS with `identity`.
    ///
    /// - Throws: ``LocalSendReceiveError`` when the port cannot be bound or TLS cannot be set up.
    public init(
        configuration: ReceiverConfiguration, options: LocalSendReceiveOptions, identity: LocalSendIdentity, events: ReceiverEvents
    ) throws(LocalSendReceiveError) {
        self.configuration = configuration
        self.options = options
        self.identity = identity
        self.events = events
        limiter = PromptLimiter(limit: configuration.promptsPerMinute, verifiedLimit: configuration.promptsPerMinute, window: .seconds(60))
        state = Mutex(State(sessions: LocalSendSessionState(stallLimit: options.stallLimit), pins: LocalSendPinGate(pin: options.pin)))
        do {
            server = try HTTPServer(port: options.port, tls: try TLSContext.serverForAnyClient(identity: identity.identity))
        } catch let error as TransportError {
            throw LocalSendReceiveError(description: Self.explain(error, port: options.port))
        } catch {
            throw LocalSendReceiveError(description: "cannot set up TLS for LocalSend: \(error)")
        }
        presence = options.announces ? LocalSendPresence(identity: identity, alias: configuration.deviceName) : nil
    }

    /// Serves until ``stop()``; blocks the calling thread.
    public func run() {
        presence?.start(port: server.port)
        let watchdog = Thread { [self] in watchStalls() }
        watchdog.start()
        server.run { [self] exchange in handle(exchange) }
        server.waitForConnections()
    }

    /// ``run()`` on a dedicated thread.
    public func runAsync() async {
        await BlockingWork.run("share.localsend") { () throws(Never) in self.run() }
    }

    /// Stops serving; a session in progress is ended and its files discarded.
    public func stop() {
        stopping.signal()
        presence?.stop()
        state.withLock { $0.asking }?.withdraw("the receiver is stopping")
        server.stop()
        let inbound = state.withLock { state -> LocalSendInbound? in
            defer { state.inbound = nil }
            if let id = state.inbound?.sessionID { _ = state.sessions.close(sessionID: id, address: nil) }
            return state.inbound
        }
        if let inbound {
            inbound.discard()
            events.finished(Self.failure(inbound.offer, PeerError(.cancelled, "the receiver was stopped by its user; nothing was placed")))
        }
    }

    // MARK: Requests

    private func handle(_ exchange: HTTPExchange) {
        switch (exchange.request.method, exchange.path) {
        case ("GET", "/api/localsend/v2/info"), ("GET", "/api/localsend/v1/info"):
            exchange.respond(200, json: ownDevice())
        case ("POST", "/api/localsend/v2/register"):
            _ = try? exchange.readBody(limit: LocalSendLimits.messageBytes)
            exchange.respond(200, json: ownDevice())
        case ("POST", "/api/localsend/v2/prepare-upload"):
            prepareUpload(exchange)
        case ("POST", "/api/localsend/v2/upload"):
            upload(exchange)
        case ("POST", "/api/localsend/v2/cancel"):
            cancel(exchange)
        default:
            exchange.respond(404, text: "share serves LocalSend v2 uploads here; nothing else")
        }
    }

    private func ownDevice() -> [UInt8] {
        identity.device(alias: configuration.deviceName, port: server.port, announce: nil, looksOnly: false)
    }

    private func prepareUpload(_ exchange: HTTPExchange) {
        let address = exchange.peerAddress
        let now = ContinuousClock.now
        // The PIN first (401, 429), then whether a session is open (409), as LocalSend receivers do.
        switch state.withLock({ $0.pins.check(exchange.query("pin"), from: address, now: now) }) {
        case .open: break
        case .wrong:
            exchange.respond(401, text: exchange.query("pin") == nil ? "this receiver requires a PIN" : "wrong PIN")
            events.finished(.refused(peerAddress: address, reason: "a LocalSend sender gave \(exchange.query("pin") == nil ? "no" : "a wrong") PIN"))
            return
        case .locked(let until):
            let seconds = max(1, (until - now).components.seconds)
            exchange.respond(429, text: "too many wrong PINs from this address; try again in \(seconds) s")
            return
        }
        releaseStalled()
        let reserved = state.withLock { state -> Bool in
            guard state.deciding == nil, state.sessions.isFree(now: now) else { return false }
            state.deciding = address
            return true
        }
        guard reserved else {
            exchange.respond(409, text: "this receiver is taking another LocalSend session; try again when it is done")
            return
        }
        var accepted = false
        defer { if !accepted { state.withLock { $0.deciding = nil } } }
        let request: LocalSendUploadRequest
        let files: LocalSendOffer
        do {
            // The offer must arrive whole within the offer deadline, however its bytes trickle in.
            let body = try exchange.readBody(
                limit: LocalSendLimits.Upload().requestBytes, by: ContinuousClock.now + configuration.offerDeadline)
            request = try LocalSendUploadRequest(json: body)
            files = try LocalSendOffer(request, modificationSeconds: Int64(Date().timeIntervalSince1970))
        } catch {
            exchange.respond(400, text: "\(error)")
            events.finished(.refused(peerAddress: address, reason: "a LocalSend sender's offer was refused: \(error)"))
            return
        }
        let origin = LocalSendOrigin(
            alias: request.sender.alias, deviceModel: request.sender.deviceModel, deviceType: request.sender.deviceType,
            claimedFingerprint: request.sender.fingerprint)
        var offer = IncomingOffer(
            peerName: request.sender.alias, peerFingerprint: Self.standIn(for: request.sender.fingerprint), peerAddress: address,
            manifest: files.manifest, verificationCode: "", pinnedName: nil, senderAttended: true)
        offer.localSend = origin
        let answer = decide(offer, address: address, exchange: exchange)
        guard answer.isAccepted else {
            exchange.respond(answer.code == .busy ? 429 : answer.code == .insufficientSpace ? 507 : 403, text: answer.message)
            events.finished(.declined(offer, answer))
            return
        }
        let sessionID = Self.token()
        var tokens: [String: String] = [:]
        for id in files.fileIDs { tokens[id] = Self.token() }
        let inbound: LocalSendInbound
        do {
            inbound = try LocalSendInbound(offer: offer, files: files, sessionID: sessionID, configuration: configuration, events: events)
        } catch {
            exchange.respond(500, text: error.messageForPeer)
            events.finished(Self.failure(offer, PeerError(.receiverFailed, error.messageForPeer)))
            return
        }
        let opened = state.withLock { state -> Bool in
            state.deciding = nil
            do {
                try state.sessions.open(id: sessionID, address: address, tokens: tokens, now: .now)
            } catch {
                return false
            }
            state.inbound = inbound
            return true
        }
        accepted = true
        guard opened else {
            inbound.discard()
            exchange.respond(409, text: "this receiver is taking another LocalSend session")
            return
        }
        let json = (try? JSONSerialization.data(withJSONObject: ["sessionId": sessionID, "files": tokens], options: [.sortedKeys])) ?? Data()
        exchange.respond(200, json: [UInt8](json))
    }

    /// The policy, the prompt limit, free space, then the person (under `ask`).
    private func decide(_ offer: IncomingOffer, address: String, exchange: HTTPExchange) -> OfferAnswer {
        switch configuration.effectivePolicy() {
        case .trusted:
            return OfferAnswer(
                .refusedByPolicy,
                message: "this receiver accepts only verified senders, and a LocalSend device cannot be verified")
        case .everyone:
            return OfferDecision.storageRefusal(offer.manifest, configuration: configuration).map(OfferAnswer.init) ?? .accept
        case .ask:
            if let refusal = limiter.admit(fingerprint: "localsend:" + (offer.localSend?.claimedFingerprint ?? ""), address: address, verified: false) {
                return OfferAnswer(.busy, message: refusal.description)
            }
            if let refusal = OfferDecision.storageRefusal(offer.manifest, configuration: configuration) {
                return OfferAnswer(refusal)
            }
            // A sender that gives up waiting (it closes its request) withdraws the question.
            let ticket = PromptTicket()
            let answered = WakeSignal()
            let watched = UncheckedExchange(exchange: exchange)
            BlockingWork.start("share.localsend-ask") {
                if watched.exchange.peerHangsUp(before: answered) { ticket.withdraw("the LocalSend sender stopped waiting") }
            }
            defer {
                answered.signal()
                state.withLock { $0.asking = nil }
            }
            state.withLock { $0.asking = ticket }
            if stopping.isSignalled { return OfferAnswer(.noAnswer, message: "the receiver is stopping") }
            return OfferAnswer(events.decide(offer, ticket))
        }
    }

    private func upload(_ exchange: HTTPExchange) {
        guard let sessionID = exchange.query("sessionId"), let fileID = exchange.query("fileId"), let token = exchange.query("token") else {
            exchange.respond(400, text: "an upload needs sessionId, fileId and token")
            return
        }
        let address = exchange.peerAddress
        let found = state.withLock { state -> Result<LocalSendInbound, LocalSendSessionState.Refusal> in
            if state.sessions.current == nil { return .failure(.forbidden("no session is open")) }
            do throws(LocalSendSessionState.Refusal) {
                try state.sessions.authorize(sessionID: sessionID, fileID: fileID, token: token, address: address)
            } catch {
                return .failure(state.sessions.current?.id == sessionID ? error : .busy)
            }
            guard let inbound = state.inbound else { return .failure(.forbidden("no session is open")) }
            return .success(inbound)
        }
        let inbound: LocalSendInbound
        switch found {
        case .success(let session): inbound = session
        case .failure(let refusal):
            switch refusal {
            case .busy: exchange.respond(409, text: "this receiver is taking another LocalSend session")
            case .forbidden(let reason): exchange.respond(403, text: reason)
            }
            return
        }
        let taken = inbound.take(exchange, fileID: fileID, window: options.stallLimit) { [self] in
            state.withLock { $0.sessions.moved(now: .now) }
        }
        if case .failure(let failure) = taken {
            end(inbound, failure: failure, answering: exchange)
            return
        }
        let last = state.withLock { state -> Bool in
            guard state.inbound === inbound else { return false }
            return state.sessions.finished(fileID: fileID, now: .now)
        }
        guard last else {
            exchange.respond(200)
            return
        }
        switch inbound.commit() {
        case .failure(let failure):
            end(inbound, failure: failure, answering: exchange)
        case .success(let (entries, digests)):
            // Committed: the sender hears so before the imports run (they may take a while).
            release(inbound)
            exchange.respond(200)
            events.finished(.received(inbound.importAll(entries, digests: digests)))
        }
    }

    private func cancel(_ exchange: HTTPExchange) {
        let closed = state.withLock { state -> LocalSendInbound? in
            guard let id = exchange.query("sessionId"), state.sessions.close(sessionID: id, address: exchange.peerAddress) != nil else {
                return nil
            }
            defer { state.inbound = nil }
            return state.inbound
        }
        guard let closed else {
            exchange.respond(403, text: "no such session from this address")
            return
        }
        closed.discard()
        exchange.respond(200)
        events.finished(Self.failure(closed.offer, PeerError(.cancelled, "the LocalSend sender cancelled; nothing was kept")))
    }

    /// Ends the session after a failed upload: nothing of it is kept, and both sides hear why.
    private func end(_ inbound: LocalSendInbound, failure: LocalSendInbound.UploadFailure, answering exchange: HTTPExchange) {
        // A session ended meanwhile (stopped, cancelled, released) was reported by whoever ended it.
        let ours = release(inbound)
        inbound.discard()
        let (status, error): (Int, PeerError) =
            switch failure {
            case .wrongLength(let text): (400, PeerError(.sizeMismatch, text))
            case .cutShort(let text): (400, PeerError(.cancelled, text))
            case .damaged(let text): (422, PeerError(.hashMismatch, text))
            case .storage(let text): (500, PeerError(.receiverFailed, text))
            }
        exchange.respond(status, text: error.message)
        if ours { events.finished(Self.failure(inbound.offer, error)) }
    }

    /// Forgets `inbound` as the open session; whether it still was.
    @discardableResult
    private func release(_ inbound: LocalSendInbound) -> Bool {
        state.withLock { state in
            guard state.inbound === inbound else { return false }
            _ = state.sessions.close(sessionID: inbound.sessionID, address: nil)
            state.inbound = nil
            return true
        }
    }

    /// Checks for a stalled session every second (or more often for a short stall limit).
    private func watchStalls() {
        let tick = min(.seconds(1), options.stallLimit / 4)
        while !stopping.wait(timeout: tick) { releaseStalled() }
    }

    /// Releases a session that stood still for ``LocalSendReceiveOptions/stallLimit``: its files go, and
    /// the failure is reported.
    private func releaseStalled() {
        let stalled = state.withLock { state -> LocalSendInbound? in
            guard state.sessions.releaseIfStalled(now: .now) != nil else { return nil }
            defer { state.inbound = nil }
            return state.inbound
        }
        if let stalled {
            stalled.discard()
            let seconds = options.stallLimit.components.seconds
            events.finished(
                Self.failure(stalled.offer, PeerError(.timedOut, "the LocalSend sender sent nothing for \(seconds) s; its session was released and nothing was kept")))
        }
    }

    // MARK: Helpers

    private static func failure(_ offer: IncomingOffer, _ error: PeerError) -> IncomingOutcome {
        .failed(peerName: offer.peerName, peerFingerprint: nil, peerAddress: offer.peerAddress, .local(error), keptBytes: 0)
    }

    /// What stands for a LocalSend sender's key where share keeps one (prompt limits, the inbox): a
    /// hash of the fingerprint it claims, so it never equals a real share key.
    static func standIn(for claimed: String) -> Fingerprint {
        let digest = Array(("localsend:" + claimed.uppercased()).utf8).withUnsafeBytes { SHA256.hash($0) }
        return Fingerprint(bytes: digest)!
    }

    /// A random token for a session or a file: 128 bits, URL-safe.
    static func token() -> String {
        Data(SecureRandom.bytes(16)).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    private static func explain(_ error: TransportError, port: UInt16) -> String {
        if case .cannotListen(_, let code) = error, code == EADDRINUSE {
            return "cannot answer LocalSend senders: port \(port) is taken (is a LocalSend app running here?); "
                + "choose another with --localsend-port (senders then need it: localsend://HOST:PORT)"
        }
        return "cannot answer LocalSend senders: \(error)"
    }
}

/// An exchange watched from a second thread while a person decides: that thread only polls its socket
/// (``HTTPExchange/peerHangsUp(before:)``), and the exchange outlives it (the question's answer
/// signals it to end before the exchange is answered).
private struct UncheckedExchange: @unchecked Sendable {
    let exchange: HTTPExchange
}
