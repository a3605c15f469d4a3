public import ShareDocuments

/// The receiver's side of one transfer, as a state machine without I/O (docs/PROTOCOL.md §5).
///
/// The driver feeds it decoded frames and local events, and carries out the actions it returns, in
/// order. It enforces the order of frames, the assembly of a multi-frame offer, the verification
/// exchange, the current file index, each file's position and offered size; the driver does the
/// deciding, hashing, writing and committing the actions ask for.
public struct ReceiverSession: Sendable {
    /// Where the conversation stands.
    public enum State: Sendable, Hashable {
        case awaitingHello, greeting, awaitingOffer, receivingOffer, deciding, awaitingVerify, receiving, committing,
            done, failed
    }

    /// What the driver must do.
    public enum Action: Sendable, Hashable {
        /// Send this frame.
        case send(Frame)
        /// The sender's HELLO arrived: check its key, choose this side's features and flags, and
        /// answer with ``answerHello(features:flags:refusal:)``.
        case greet(peer: Hello)
        /// Ask the local policy (or user) whether to accept; answer with ``decided(_:have:)``.
        case decide(peer: Hello, manifest: Manifest)
        /// The sender asks to verify identities (PAIR): show the verification code and ask the
        /// local user to compare it; answer with ``decided(_:have:)`` (accepted: the codes matched).
        case verify(peer: Hello)
        /// The sender's user said the codes differ: stop asking the local user (a failure follows).
        case codeRejectedBySender
        /// Both users confirmed the code (this side's user accepted, the sender's VERIFY confirmed):
        /// remember the sender as verified now.
        case mutuallyVerified
        /// The pairing is over and both users confirmed the code.
        case verified
        /// Prepare file k: from scratch (`offset` 0, discarding anything held of it) or continuing the
        /// `offset` bytes held of it (resumption).
        case openFile(fileIndex: Int, offset: UInt64)
        /// Append this chunk (raw or compressed) to file k.
        case write(fileIndex: Int, chunk: DataChunk)
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
    /// The offer, once complete and valid.
    public private(set) var manifest: Manifest?
    /// The file being received (index among the manifest's files).
    public private(set) var currentFile = 0
    /// The position reached in the current file.
    public private(set) var currentFileBytes: UInt64 = 0
    /// Whether the sender asked to pair rather than offered documents.
    public private(set) var isPairing = false
    /// Whether this side said in its HELLO that it shows the verification code (COMPARE).
    public private(set) var showsCode = false
    /// The features both HELLOs carry.
    public private(set) var features: HelloFeatures = []
    /// The sender's answer about the code, once it arrived.
    public private(set) var senderVerification: VerifyResult?
    private var currentFileOpened = false
    private var accepted = false
    private var offerStart: OfferStart?
    private var offerEntries = ManifestEntries()
    /// What the offer's entries so far take on the wire (``ManifestLimits/maxOfferBytes``).
    private var offerBytes = 0
    private var held: [Int: UInt64] = [:]
    private var localName: String
    private let limits: ManifestLimits

    /// Why a pairing is declined by a receiver whose HELLO did not set COMPARE.
    public static let nobodyToCompare =
        "the receiver has nobody to compare a verification code with (it receives without asking anyone)"

    /// Creates the machine for a receiver called `localName`.
    public init(localName: String, limits: ManifestLimits = .protocolDefault) {
        self.localName = localName
        self.limits = limits
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
            state = .greeting
            return [.greet(peer: hello)]
        case (.awaitingOffer, .pair):
            isPairing = true
            guard showsCode else {
                // Its HELLO said nobody here compares a code: the pairing is declined (§4 PAIR).
                state = .done
                let refusal = Decision(.nobodyToAsk, message: Self.nobodyToCompare)
                return [.send(.decision(refusal)), .declined(refusal), .close]
            }
            state = .deciding
            return [.verify(peer: peer!)]
        case (.awaitingOffer, .offer(let start, let entries)):
            offerStart = start
            // At most maxEntries records (ManifestLimits): reserving them at once spares the copies
            // of growing one by one, which would double the peak for a large offer.
            offerEntries.reserveCapacity(min(Int(start.entryCount), limits.maxEntries))
            return collect(entries)
        case (.receivingOffer, .entries(let entries)):
            return collect(entries)
        case (.deciding, .verify(let result)), (.awaitingVerify, .verify(let result)), (.receiving, .verify(let result)):
            return verification(result, frame: frame)
        case (.receiving, .data(let chunk)):
            return data(chunk, frame: frame)
        case (.receiving, .fileEnd(let index, let digest)):
            return fileEnd(index: index, digest: digest, frame: frame)
        case (.done, _), (.failed, _):
            return []
        default:
            return violation(frame, expected: expectation)
        }
    }

    /// Answers the sender's HELLO: with `refusal`, this side refuses the sender outright (a blocked
    /// key, a policy, busy) without waiting for its offer. `name` replaces the name given at creation
    /// (the receiver may have been renamed since).
    public mutating func answerHello(
        name: String? = nil, features: HelloFeatures, flags: HelloFlags, refusal: Decision? = nil
    ) -> [Action] {
        guard state == .greeting, let peer else { return [] }
        if let name { localName = name }
        self.features = features.intersection(peer.features)
        showsCode = flags.contains(.compare) && refusal == nil
        let hello = Hello(
            name: Hello.sanitizedName(localName), features: features,
            flags: refusal == nil ? flags : flags.subtracting(.compare).union(.decided))
        guard let refusal, !refusal.isAccepted else {
            state = .awaitingOffer
            return [.send(.hello(hello))]
        }
        state = .done
        return [.send(.hello(hello)), .send(.decision(refusal)), .declined(refusal), .close]
    }

    /// Handles the local decision on the offer (or pairing). `have` lists what this side already
    /// holds of the offer's files (resumption), in ascending file order; it is announced only with an
    /// accepting decision.
    public mutating func decided(_ decision: Decision, have: [HaveRecord] = []) -> [Action] {
        guard state == .deciding else { return [] }
        if isPairing {
            guard decision.isAccepted else {
                state = .done
                return [.send(.decision(Decision(decision.code, message: decision.message))), .declined(decision), .close]
            }
            accepted = true
            switch senderVerification {
            case .confirmed?:
                state = .done
                return [.send(.decision(Decision.accept)), .mutuallyVerified, .verified, .close]
            default:
                state = .awaitingVerify
                return [.send(.decision(Decision.accept))]
            }
        }
        guard let manifest else { return [] }
        guard decision.isAccepted else {
            state = .done
            let refusal = Decision(decision.code, message: decision.message)
            return [.send(.decision(refusal)), .declined(refusal), .close]
        }
        accepted = true
        let records = features.contains(.resume) ? have : []
        for record in records { held[Int(record.fileIndex)] = record.offset }
        var actions: [Action] = [
            .send(.decision(Decision(.accepted, message: decision.message, haveCount: UInt32(records.count))))
        ]
        var start = 0
        while start < records.count {
            let end = min(start + HaveRecord.maxPerFrame, records.count)
            actions.append(.send(.have(Array(records[start..<end]))))
            start = end
        }
        if senderVerification == .confirmed { actions.append(.mutuallyVerified) }
        state = .receiving
        if manifest.fileCount == 0 { actions += commitIfReady() }
        return actions
    }

    /// Every item is committed; `receipt` says what became of each.
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
        return [.send(.error(error.peerError(from: "receiver"))), .failed(.protocolViolation(error)), .close]
    }

    /// The connection ended (end of stream or an I/O error); `reason` says why when it was more
    /// than the peer going away (data that failed TLS's integrity check, say).
    public mutating func connectionClosed(because reason: String? = nil) -> [Action] {
        switch state {
        case .done, .failed: return []
        default:
            let during = describeState() + (reason.map { ": " + $0 } ?? "")
            state = .failed
            return [.failed(.connectionLost(during: during)), .close]
        }
    }

    private mutating func collect(_ entries: ManifestEntries) -> [Action] {
        guard let start = offerStart else { return [] }
        if offerEntries.count + entries.count > Int(start.entryCount) {
            return fail(WireError.invalidOffer(.moreEntriesThanAnnounced(announced: Int(start.entryCount))))
        }
        offerBytes += entries.encodedSize
        if offerBytes > limits.maxOfferBytes {
            return fail(WireError.invalidOffer(.offerTooLarge(bytes: offerBytes, limit: limits.maxOfferBytes)))
        }
        offerEntries.append(contentsOf: entries)
        guard offerEntries.count == Int(start.entryCount) else {
            state = .receivingOffer
            return []
        }
        let entries = offerEntries
        offerEntries = ManifestEntries()
        do {
            let manifest = try Manifest(entries: entries, declaredTotal: start.totalBytes, limits: limits)
            self.manifest = manifest
            state = .deciding
            return [.decide(peer: peer!, manifest: manifest)]
        } catch {
            return fail(WireError.invalidOffer(error))
        }
    }

    private mutating func verification(_ result: VerifyResult, frame: Frame) -> [Action] {
        guard showsCode, senderVerification == nil else {
            return violation(frame, expected: showsCode ? "one VERIFY only" : "no VERIFY (this side shows no code)")
        }
        senderVerification = result
        if result == .rejected {
            state = .failed
            return [
                .codeRejectedBySender,
                .failed(.remote(PeerError(.cancelled, "the sender's user said the verification codes differ"))), .close,
            ]
        }
        guard accepted else { return [] }
        if isPairing {
            state = .done
            return [.mutuallyVerified, .verified, .close]
        }
        return [.mutuallyVerified] + commitIfReady()
    }

    private mutating func data(_ chunk: DataChunk, frame: Frame) -> [Action] {
        guard let manifest, Int(chunk.fileIndex) == currentFile, currentFile < manifest.fileCount else {
            return violation(frame, expected: fileExpectation)
        }
        if showsCode && senderVerification != .confirmed {
            return violation(frame, expected: "VERIFY before any DATA")
        }
        if case .zstd = chunk.encoding, !features.contains(.zstd) {
            return violation(frame, expected: "raw DATA (zstd is not in use)")
        }
        var actions: [Action] = []
        if !currentFileOpened {
            let allowed = chunk.offset == 0 || chunk.offset == held[currentFile]
            guard allowed else {
                return violation(frame, expected: "DATA for file \(currentFile) at offset 0 or at what the receiver holds")
            }
            currentFileOpened = true
            currentFileBytes = chunk.offset
            actions.append(.openFile(fileIndex: currentFile, offset: chunk.offset))
        } else if chunk.offset != currentFileBytes {
            return violation(frame, expected: "DATA for file \(currentFile) at offset \(currentFileBytes)")
        }
        let entryIndex = manifest.fileEntryIndices[currentFile]
        let size = manifest.entries.size(at: entryIndex)
        let (received, overflow) = currentFileBytes.addingReportingOverflow(UInt64(chunk.fileByteCount))
        if overflow || received > size {
            return fail(.sizeMismatch(path: manifest.entries.path(at: entryIndex), offered: size, received: received))
        }
        currentFileBytes = received
        actions.append(.write(fileIndex: currentFile, chunk: chunk))
        return actions
    }

    private mutating func fileEnd(index: UInt32, digest: [UInt8], frame: Frame) -> [Action] {
        guard let manifest, Int(index) == currentFile, currentFile < manifest.fileCount else {
            return violation(frame, expected: fileExpectation)
        }
        if showsCode && senderVerification != .confirmed {
            return violation(frame, expected: "VERIFY before any file")
        }
        let entry = manifest.entries[manifest.fileEntryIndices[currentFile]]
        var actions: [Action] = []
        if !currentFileOpened {
            // No DATA: an empty file, or one the receiver holds whole and the sender agrees.
            let start: UInt64 = held[currentFile] == entry.size ? entry.size : 0
            currentFileBytes = start
            actions.append(.openFile(fileIndex: currentFile, offset: start))
        }
        if currentFileBytes != entry.size {
            return fail(.sizeMismatch(path: entry.path, offered: entry.size, received: currentFileBytes))
        }
        actions.append(.closeFile(fileIndex: currentFile, sha256: digest))
        currentFile += 1
        currentFileBytes = 0
        currentFileOpened = false
        return actions + commitIfReady()
    }

    private mutating func commitIfReady() -> [Action] {
        guard state == .receiving, let manifest, currentFile == manifest.fileCount else { return [] }
        if showsCode && senderVerification != .confirmed { return [] }
        state = .committing
        return [.commit]
    }

    private mutating func violation(_ frame: Frame, expected: String) -> [Action] {
        fail(WireError.unexpectedFrame(frame.type, expected: expected))
    }

    private var fileExpectation: String { "DATA or FILE_END for file \(currentFile)" }

    private var expectation: String {
        switch state {
        case .awaitingHello: "HELLO"
        case .greeting: "nothing (the receiver is answering HELLO)"
        case .awaitingOffer: "OFFER or PAIR"
        case .receivingOffer: "ENTRIES"
        case .deciding: showsCode ? "VERIFY or nothing (the receiver is deciding)" : "nothing (the receiver is deciding)"
        case .awaitingVerify: "VERIFY"
        case .receiving: fileExpectation
        case .committing: "nothing (the receiver is committing)"
        case .done, .failed: "nothing"
        }
    }

    private func describeState() -> String {
        switch state {
        case .awaitingHello, .greeting, .awaitingOffer, .receivingOffer: "before the sender made an offer"
        case .deciding: "while the offer was being decided"
        case .awaitingVerify: "while waiting for the sender's user to confirm the code"
        case .receiving:
            "while receiving file \(currentFile + 1) of \(manifest?.fileCount ?? 0)"
        case .committing: "while committing"
        case .done, .failed: "after the transfer"
        }
    }
}
