public import ShareDocuments

/// The sender's side of one transfer, as a state machine without I/O.
///
/// The driver sends what ``start(localName:manifest:)`` returns, feeds the receiver's frames to
/// ``receive(_:)``, streams the files when told to, and reports the end of the stream with
/// ``finishedStreaming()``.
public struct SenderSession: Sendable {
    /// Where the conversation stands.
    public enum State: Sendable, Hashable {
        case idle, awaitingDecision, streaming, awaitingReceipt, done, failed
    }

    /// What the driver must do.
    public enum Action: Sendable, Hashable {
        /// Send this frame.
        case send(Frame)
        /// The offer was accepted: stream every file (DATA ... FILE_END, in order), then call
        /// ``finishedStreaming()``.
        case stream
        /// The receiver declined.
        case declined(Decision)
        /// The receiver's user confirmed the pairing (after ``startPairing(localName:)``).
        case verified
        /// The receiver committed everything; the receipt says where each item landed.
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
    private var manifest: Manifest?
    private var isPairing = false

    /// Creates the machine.
    public init() {}

    /// Starts the conversation: HELLO and OFFER, without waiting for the receiver's HELLO.
    public mutating func start(localName: String, manifest: Manifest) -> [Action] {
        guard state == .idle else { return [] }
        self.manifest = manifest
        state = .awaitingDecision
        return [.send(.hello(Hello(name: Hello.sanitizedName(localName)))), .send(.offer(manifest))]
    }

    /// Starts a pairing: HELLO and PAIR instead of an offer.
    public mutating func startPairing(localName: String) -> [Action] {
        guard state == .idle else { return [] }
        isPairing = true
        state = .awaitingDecision
        return [.send(.hello(Hello(name: Hello.sanitizedName(localName)))), .send(.pair)]
    }

    /// Handles a frame from the receiver.
    public mutating func receive(_ frame: Frame) -> [Action] {
        if case .error(let error) = frame {
            guard state != .done && state != .failed else { return [] }
            state = .failed
            return [.failed(.remote(error)), .close]
        }
        switch (state, frame) {
        case (.awaitingDecision, .hello(let hello)) where peer == nil:
            peer = hello
            return []
        case (.awaitingDecision, .decision(let decision)) where peer != nil:
            if isPairing {
                state = .done
                return decision.isAccepted ? [.verified, .close] : [.declined(decision), .close]
            }
            if decision.isAccepted {
                state = .streaming
                return [.stream]
            }
            state = .done
            return [.declined(decision), .close]
        case (.awaitingReceipt, .receipt(let receipt)):
            guard receipt.locations.count == manifest?.items.count else {
                return fail(.malformed(.receipt, "\(receipt.locations.count) locations for \(manifest?.items.count ?? 0) items"))
            }
            state = .done
            return [.completed(receipt), .close]
        case (.done, _), (.failed, _):
            return []
        default:
            let expected =
                switch state {
                case .awaitingDecision: peer == nil ? "HELLO" : "DECISION"
                case .awaitingReceipt: "RECEIPT"
                default: "nothing while the files are being sent"
                }
            return fail(.unexpectedFrame(frame.type, expected: expected))
        }
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
        return [.send(.error(error.peerError)), .failed(.protocolViolation(error)), .close]
    }

    /// The connection ended.
    public mutating func connectionClosed() -> [Action] {
        switch state {
        case .done, .failed: return []
        case .idle, .awaitingDecision:
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
}
