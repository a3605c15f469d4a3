public import ShareDocuments

/// The receiver's side of one transfer, as a state machine without I/O.
///
/// The driver feeds it decoded frames and local events, and carries out the actions it returns, in
/// order. It enforces the order of frames, the current file index and each file's offered size;
/// the driver does the hashing, writing and committing the actions ask for.
public struct ReceiverSession: Sendable {
    /// Where the conversation stands.
    public enum State: Sendable, Hashable {
        case awaitingHello, awaitingOffer, deciding, receiving, committing, done, failed
    }

    /// What the driver must do.
    public enum Action: Sendable, Hashable {
        /// Send this frame.
        case send(Frame)
        /// Ask the local policy (or user) whether to accept; answer with ``decided(_:)``.
        case decide(peer: Hello, manifest: Manifest)
        /// The sender asks to verify identities (PAIR): show the verification code and ask the
        /// local user to compare it; answer with ``decided(_:)`` (accepted: the codes matched).
        case verify(peer: Hello)
        /// The pairing was confirmed here and the sender has the answer.
        case verified
        /// Create the staging file for the k-th file of the manifest.
        case openFile(fileIndex: Int)
        /// Append these bytes to file k.
        case write(fileIndex: Int, bytes: [UInt8])
        /// File k is complete: finish it and check its SHA-256 against `sha256`.
        case closeFile(fileIndex: Int, sha256: [UInt8])
        /// Every file has arrived: once every file is verified, commit and call ``committed(_:)``
        /// (or ``fail(_:)``).
        case commit
        /// The offer was declined; nothing more will happen.
        case declined(Decision)
        /// The transfer is complete and the sender has the receipt.
        case completed(Receipt)
        /// The transfer failed; tell the local user.
        case failed(TransferFailure)
        /// Close the connection (after the sends before it).
        case close
    }

    /// The current state.
    public private(set) var state: State = .awaitingHello
    /// The sender's HELLO, once received.
    public private(set) var peer: Hello?
    /// The offer, once received.
    public private(set) var manifest: Manifest?
    /// The file being received (index among the manifest's files).
    public private(set) var currentFile = 0
    /// Bytes of the current file received so far.
    public private(set) var currentFileBytes: UInt64 = 0
    private var currentFileOpened = false
    /// Whether the sender asked to pair rather than offered documents.
    public private(set) var isPairing = false
    private let localName: String

    /// Creates the machine for a receiver called `localName`.
    public init(localName: String) { self.localName = localName }

    /// The first actions: send our HELLO.
    public mutating func start() -> [Action] {
        [.send(.hello(Hello(name: Hello.sanitizedName(localName))))]
    }

    /// Handles a frame from the sender.
    public mutating func receive(_ frame: Frame) -> [Action] {
        if case .error(let error) = frame {
            guard state != .done && state != .failed else { return [] }
            state = .failed
            return [.failed(.remote(error)), .close]
        }
        switch (state, frame) {
        case (.awaitingHello, .hello(let hello)):
            peer = hello
            state = .awaitingOffer
            return []
        case (.awaitingOffer, .pair):
            isPairing = true
            state = .deciding
            return [.verify(peer: peer ?? Hello(name: "unknown"))]
        case (.awaitingOffer, .offer(let offered)):
            manifest = offered
            state = .deciding
            return [.decide(peer: peer ?? Hello(name: "unknown"), manifest: offered)]
        case (.receiving, .data(let index, let bytes)):
            guard let manifest, Int(index) == currentFile else { return violation(frame, expected: fileExpectation) }
            let entry = manifest.entries[manifest.fileEntryIndices[currentFile]]
            let received = currentFileBytes + UInt64(bytes.count)
            if received > entry.size {
                return fail(.sizeMismatch(path: entry.path, offered: entry.size, received: received))
            }
            currentFileBytes = received
            var actions = openIfNeeded()
            actions.append(.write(fileIndex: currentFile, bytes: bytes))
            return actions
        case (.receiving, .fileEnd(let index, let digest)):
            guard let manifest, Int(index) == currentFile else { return violation(frame, expected: fileExpectation) }
            let entry = manifest.entries[manifest.fileEntryIndices[currentFile]]
            if currentFileBytes != entry.size {
                return fail(.sizeMismatch(path: entry.path, offered: entry.size, received: currentFileBytes))
            }
            var actions = openIfNeeded()
            actions.append(.closeFile(fileIndex: currentFile, sha256: digest))
            currentFile += 1
            currentFileBytes = 0
            currentFileOpened = false
            if currentFile == manifest.fileCount {
                state = .committing
                actions.append(.commit)
            }
            return actions
        case (.done, _), (.failed, _):
            return []
        default:
            return violation(frame, expected: expectation)
        }
    }

    /// Handles the local decision on the offer.
    public mutating func decided(_ decision: Decision) -> [Action] {
        guard state == .deciding else { return [] }
        if isPairing {
            state = .done
            return decision.isAccepted
                ? [.send(.decision(decision)), .verified, .close]
                : [.send(.decision(decision)), .declined(decision), .close]
        }
        guard let manifest else { return [] }
        guard decision.isAccepted else {
            state = .done
            return [.send(.decision(decision)), .declined(decision), .close]
        }
        state = .receiving
        var actions: [Action] = [.send(.decision(decision))]
        if manifest.fileCount == 0 {
            state = .committing
            actions.append(.commit)
        }
        return actions
    }

    /// Every item is committed; `receipt` says where each landed.
    public mutating func committed(_ receipt: Receipt) -> [Action] {
        guard state == .committing else { return [] }
        state = .done
        return [.send(.receipt(receipt)), .completed(receipt), .close]
    }

    /// A local failure (a hash that does not match, a disk error, a cancel): tell the peer and stop.
    public mutating func fail(_ error: PeerError) -> [Action] {
        guard state != .done && state != .failed else { return [] }
        state = .failed
        return [.send(.error(error)), .failed(.local(error)), .close]
    }

    /// The decoder refused the sender's bytes.
    public mutating func fail(_ error: WireError) -> [Action] {
        guard state != .done && state != .failed else { return [] }
        state = .failed
        return [.send(.error(error.peerError)), .failed(.protocolViolation(error)), .close]
    }

    /// The connection ended (end of stream or an I/O error).
    public mutating func connectionClosed() -> [Action] {
        switch state {
        case .done, .failed: return []
        default:
            let during = describeState()
            state = .failed
            return [.failed(.connectionLost(during: during)), .close]
        }
    }

    private mutating func openIfNeeded() -> [Action] {
        if currentFileOpened { return [] }
        currentFileOpened = true
        return [.openFile(fileIndex: currentFile)]
    }

    private mutating func violation(_ frame: Frame, expected: String) -> [Action] {
        fail(WireError.unexpectedFrame(frame.type, expected: expected))
    }

    private var fileExpectation: String { "DATA or FILE_END for file \(currentFile)" }

    private var expectation: String {
        switch state {
        case .awaitingHello: "HELLO"
        case .awaitingOffer: "OFFER or PAIR"
        case .deciding: "nothing (the receiver is deciding)"
        case .receiving: fileExpectation
        case .committing: "nothing (the receiver is committing)"
        case .done, .failed: "nothing"
        }
    }

    private func describeState() -> String {
        switch state {
        case .awaitingHello, .awaitingOffer: "before the sender made an offer"
        case .deciding: "while the offer was being decided"
        case .receiving:
            "while receiving file \(currentFile + 1) of \(manifest?.fileCount ?? 0)"
        case .committing: "while committing"
        case .done, .failed: "after the transfer"
        }
    }
}
