public import ShareDocuments

/// The sender's side of one transfer, as a state machine without I/O (docs/PROTOCOL.md §5).
///
/// The driver checks the receiver's key, sends what ``start(_:)`` returns (HELLO), feeds the
/// receiver's frames to ``receive(_:)``, sends the offer with ``offer(_:)`` (or ``pair()``) once
/// the receiver greeted it, reports its user's answer about the verification code with
/// ``userAnswered(_:)``, streams the files when told to, and reports the end of the stream with
/// ``finishedStreaming()``.
public struct SenderSession: Sendable {
    /// Where the conversation stands.
    public enum State: Sendable, Hashable {
        case idle, awaitingHello, greeted, negotiating, streaming, awaitingReceipt, done, failed
    }

    /// What the driver must do.
    public enum Action: Sendable, Hashable {
        /// Send this frame.
        case send(Frame)
        /// The receiver's HELLO arrived. Unless it already decided (its DECISION follows), send the
        /// offer with ``offer(_:)`` or ``pair()``; when it shows the code (COMPARE), ask the local
        /// user and report with ``userAnswered(_:)``.
        case greeted(Hello)
        /// The offer was accepted and the receiver reported what it holds: stream every file (DATA
        /// ... FILE_END, in order, continuing from `have` where the source matches), then call
        /// ``finishedStreaming()``.
        case stream(have: [HaveRecord])
        /// The receiver declined.
        case declined(Decision)
        /// The pairing is over and both users confirmed the code.
        case verified
        /// The receiver committed everything; the receipt says what became of each item.
        case completed(Receipt)
        /// The transfer failed.
        case failed(TransferFailure)
        /// Close the connection (after the sends before it).
        case close
    }

    /// The current state.
    public private(set) var state: State = .idle
    /// The receiver's HELLO, once received.
    public private(set) var peer: Hello?
    /// The receiver's decision, once received.
    public private(set) var decision: Decision?
    /// The local user's answer about the code, once given.
    public private(set) var userAnswer: VerifyResult?
    /// The features both HELLOs carry.
    public private(set) var features: HelloFeatures = []
    private var ownFeatures: HelloFeatures = []
    private var ownFlags: HelloFlags = []
    private var manifest: Manifest?
    private var isPairing = false
    private var offerSent = false
    private var have: [HaveRecord] = []

    /// Creates the machine.
    public init() {}

    /// Whether the receiver shows the verification code with this offer (its HELLO set COMPARE):
    /// the local user must then compare it and answer with ``userAnswered(_:)``.
    public var receiverShowsCode: Bool { peer?.flags.contains(.compare) ?? false }

    /// Starts the conversation: HELLO (after the driver checked the receiver's key).
    public mutating func start(_ hello: Hello) -> [Action] {
        guard state == .idle else { return [] }
        ownFeatures = hello.features
        ownFlags = hello.flags
        state = .awaitingHello
        var hello = hello
        hello.name = Hello.sanitizedName(hello.name)
        return [.send(.hello(hello))]
    }

    /// Sends the offer (after ``Action/greeted(_:)``).
    public mutating func offer(_ manifest: Manifest) -> [Action] {
        guard state == .greeted, !offerSent else { return [] }
        self.manifest = manifest
        offerSent = true
        state = .negotiating
        return OfferCodec.frames(for: manifest).map { .send($0) }
    }

    /// Asks the receiver to verify identities instead of offering documents.
    public mutating func pair() -> [Action] {
        guard state == .greeted, !offerSent else { return [] }
        isPairing = true
        offerSent = true
        state = .negotiating
        return [.send(.pair)]
    }

    /// The local user's answer to "does the receiver show the same code?".
    public mutating func userAnswered(_ result: VerifyResult) -> [Action] {
        guard offerSent, receiverShowsCode, userAnswer == nil, state == .negotiating else { return [] }
        userAnswer = result
        if result == .rejected {
            state = .failed
            let failure = PeerError(.cancelled, "you said the codes differ: someone may be intercepting; nothing was sent")
            return [.send(.verify(.rejected)), .failed(.local(failure)), .close]
        }
        return [.send(.verify(.confirmed))] + proceedIfReady()
    }

    /// Handles a frame from the receiver.
    public mutating func receive(_ frame: Frame) -> [Action] {
        if case .error(let error) = frame {
            guard state != .done && state != .failed else { return [] }
            let refusedOurVersion =
                state == .awaitingHello && error.code == .unsupportedVersion && !Self.isFromNewerVersion(error)
            state = .failed
            if refusedOurVersion {
                // Only a version 1 receiver refuses this side's HELLO for its version (§12).
                return [.failed(.protocolViolation(.unsupportedVersion(peerVersion: 1))), .close]
            }
            return [.failed(.remote(error)), .close]
        }
        switch (state, frame) {
        case (.awaitingHello, .hello(let hello)):
            if let reason = Self.comparisonNobodyCanMake(own: ownFlags, peer: hello.flags) {
                return fail(WireError.malformed(.hello, reason))
            }
            peer = hello
            features = ownFeatures.intersection(hello.features)
            state = hello.flags.contains(.decided) ? .negotiating : .greeted
            return [.greeted(hello)]
        case (.negotiating, .decision(let decision)) where self.decision == nil,
            (.greeted, .decision(let decision)) where self.decision == nil:
            if decision.isAccepted && !offerSent {
                return fail(WireError.unexpectedFrame(.decision, expected: "a refusal or nothing before the offer"))
            }
            self.decision = decision
            guard decision.isAccepted else {
                state = .done
                return [.declined(decision), .close]
            }
            if decision.haveCount > 0 && (isPairing || !features.contains(.resume)) {
                return fail(WireError.malformed(.decision, "HAVE records announced where resumption is not in use"))
            }
            return proceedIfReady()
        case (.negotiating, .have(let records)) where decision?.isAccepted == true:
            return received(records)
        case (.awaitingReceipt, .receipt(let receipt)):
            guard receipt.items.count == manifest?.items.count else {
                return fail(WireError.malformed(.receipt, "\(receipt.items.count) items for \(manifest?.items.count ?? 0)"))
            }
            state = .done
            return [.completed(receipt), .close]
        case (.done, _), (.failed, _):
            return []
        default:
            let expected =
                switch state {
                case .awaitingHello: "HELLO"
                case .greeted: "nothing before the offer"
                case .negotiating: decision == nil ? "DECISION" : "HAVE"
                case .awaitingReceipt: "RECEIPT"
                default: "nothing while the files are being sent"
                }
            return fail(WireError.unexpectedFrame(frame.type, expected: expected))
        }
    }

    /// Whether a version refusal comes from a newer receiver: from version 2 on, it says
    /// "this receiver speaks share protocol N" (§12); version 1 says no such thing.
    static func isFromNewerVersion(_ error: PeerError) -> Bool {
        let words = error.message.split(separator: " ")
        for index in words.indices.dropLast(3)
        where words[index] == "speaks" && words[index + 1] == "share" && words[index + 2] == "protocol" {
            let digits = words[index + 3].prefix { $0.isNumber }
            if let version = Int(digits), version > Int(Hello.currentVersion) { return true }
        }
        return false
    }

    /// Every file has been sent; wait for the receipt.
    public mutating func finishedStreaming() -> [Action] {
        guard state == .streaming else { return [] }
        state = .awaitingReceipt
        return []
    }

    /// A local failure (a file that cannot be read or changed while sent, a cancel).
    public mutating func fail(_ error: PeerError) -> [Action] {
        guard state != .done && state != .failed else { return [] }
        state = .failed
        return [.send(.error(error)), .failed(.local(error)), .close]
    }

    /// The decoder refused the receiver's bytes.
    public mutating func fail(_ error: WireError) -> [Action] {
        guard state != .done && state != .failed else { return [] }
        state = .failed
        return [.send(.error(error.peerError(from: "sender"))), .failed(.protocolViolation(error)), .close]
    }

    /// The connection ended.
    public mutating func connectionClosed() -> [Action] {
        switch state {
        case .done, .failed: return []
        case .idle, .awaitingHello, .greeted, .negotiating:
            state = .failed
            return [.failed(.connectionLost(during: "before the receiver answered the offer")), .close]
        case .streaming:
            state = .failed
            return [.failed(.connectionLost(during: "while sending")), .close]
        case .awaitingReceipt:
            state = .failed
            return [.failed(.connectionLost(during: "before the receiver confirmed the transfer")), .close]
        }
    }

    private mutating func received(_ records: [HaveRecord]) -> [Action] {
        guard let manifest, let decision else { return [] }
        if have.count + records.count > Int(decision.haveCount) {
            return fail(WireError.malformed(.have, "more records than the DECISION announced (\(decision.haveCount))"))
        }
        for record in records {
            let index = Int(record.fileIndex)
            if let last = have.last, record.fileIndex <= last.fileIndex {
                return fail(WireError.malformed(.have, "records out of order (file \(record.fileIndex))"))
            }
            guard index < manifest.fileCount else {
                return fail(WireError.malformed(.have, "a record for file \(index) of \(manifest.fileCount)"))
            }
            let size = manifest.entries.size(at: manifest.fileEntryIndices[index])
            guard record.offset >= 1 && record.offset <= size else {
                return fail(WireError.malformed(.have, "a record of \(record.offset) bytes for a file of \(size)"))
            }
            have.append(record)
        }
        return proceedIfReady()
    }

    /// Why a receiver's HELLO that sets COMPARE breaks §6 (a receiver sets it only when both HELLOs
    /// set ATTENDED), or nil: a code that no person can compare is refused at once rather than
    /// waited on.
    private static func comparisonNobodyCanMake(own: HelloFlags, peer: HelloFlags) -> String? {
        guard peer.contains(.compare) else { return nil }
        if !own.contains(.attended) {
            return "it asks to compare a verification code, but nobody is at this sender to compare it "
                + "(COMPARE needs ATTENDED in both HELLOs: docs/PROTOCOL.md §6); nothing was sent"
        }
        if !peer.contains(.attended) {
            return "it shows a verification code with nobody there to see it "
                + "(COMPARE needs ATTENDED in both HELLOs: docs/PROTOCOL.md §6); nothing was sent"
        }
        return nil
    }

    private mutating func proceedIfReady() -> [Action] {
        guard state == .negotiating, let decision, decision.isAccepted else { return [] }
        guard have.count == Int(decision.haveCount) else { return [] }
        if receiverShowsCode && userAnswer != .confirmed { return [] }
        if isPairing {
            state = .done
            return [.verified, .close]
        }
        state = .streaming
        return [.stream(have: have)]
    }
}
