import ShareDocuments
import ShareWire
import Testing

/// The two session machines against each other in memory (docs/PROTOCOL.md §5–§8).
@Suite struct SessionTests {
    static let manifest = try! Manifest(entries: [
        ManifestEntry(kind: .file, path: "a.txt", mode: 0o644, size: 3),
        ManifestEntry(kind: .directory, path: "B", mode: 0o755),
        ManifestEntry(kind: .file, path: "B/empty", mode: 0o644, size: 0),
    ])
    static let digest = [UInt8](repeating: 9, count: 32)

    /// A sender and a receiver connected in memory: frames each one sends are delivered to the
    /// other by ``pump()``; what is not a send is recorded as an event.
    struct Link {
        var sender = SenderSession()
        var receiver = ReceiverSession(localName: "desk")
        var toReceiver: [Frame] = []
        var toSender: [Frame] = []
        var senderEvents: [SenderSession.Action] = []
        var receiverEvents: [ReceiverSession.Action] = []

        mutating func route(_ actions: [SenderSession.Action]) {
            for action in actions {
                if case .send(let frame) = action { toReceiver.append(frame) } else { senderEvents.append(action) }
            }
        }

        mutating func route(_ actions: [ReceiverSession.Action]) {
            for action in actions {
                if case .send(let frame) = action { toSender.append(frame) } else { receiverEvents.append(action) }
            }
        }

        mutating func pump() {
            while !toReceiver.isEmpty || !toSender.isEmpty {
                let forReceiver = toReceiver
                toReceiver = []
                for frame in forReceiver { route(receiver.receive(frame)) }
                let forSender = toSender
                toSender = []
                for frame in forSender { route(sender.receive(frame)) }
            }
        }

        mutating func takeSenderEvents() -> [SenderSession.Action] {
            defer { senderEvents = [] }
            return senderEvents
        }

        mutating func takeReceiverEvents() -> [ReceiverSession.Action] {
            defer { receiverEvents = [] }
            return receiverEvents
        }

        /// HELLO both ways, with the given flags, then the offer.
        mutating func greet(
            senderFlags: HelloFlags = [], receiverFlags: HelloFlags = [], features: HelloFeatures = [],
            manifest: Manifest = SessionTests.manifest
        ) {
            route(sender.start(Hello(name: "laptop", features: features, flags: senderFlags)))
            pump()
            #expect(takeReceiverEvents() == [.greet(peer: Hello(name: "laptop", features: features, flags: senderFlags))])
            route(receiver.answerHello(features: features, flags: receiverFlags))
            pump()
            #expect(takeSenderEvents() == [.greeted(Hello(name: "desk", features: features, flags: receiverFlags))])
            route(sender.offer(manifest))
            pump()
        }
    }

    @Test func aWholeTransferInMemory() {
        var link = Link()
        link.greet()
        #expect(link.takeReceiverEvents() == [.decide(peer: Hello(name: "laptop"), manifest: Self.manifest)])
        link.route(link.receiver.decided(.accept))
        link.pump()
        #expect(link.takeSenderEvents() == [.stream(have: [])])

        // Stream: file 0 in two DATA frames, then the empty file.
        link.toReceiver = [
            .data(DataChunk(fileIndex: 0, offset: 0, bytes: [1, 2])), .data(DataChunk(fileIndex: 0, offset: 2, bytes: [3])),
            .fileEnd(fileIndex: 0, sha256: Self.digest), .fileEnd(fileIndex: 1, sha256: Self.digest),
        ]
        link.pump()
        link.route(link.sender.finishedStreaming())
        #expect(link.takeReceiverEvents() == [
            .openFile(fileIndex: 0, offset: 0), .write(fileIndex: 0, chunk: DataChunk(fileIndex: 0, offset: 0, bytes: [1, 2])),
            .write(fileIndex: 0, chunk: DataChunk(fileIndex: 0, offset: 2, bytes: [3])),
            .closeFile(fileIndex: 0, sha256: Self.digest), .openFile(fileIndex: 1, offset: 0),
            .closeFile(fileIndex: 1, sha256: Self.digest), .commit,
        ])
        let receipt = Receipt(items: [ReceiptItem(.placed, "~/Downloads/a.txt"), ReceiptItem(.imported, "ScaryBugs")])
        link.route(link.receiver.committed(receipt))
        #expect(link.takeReceiverEvents() == [.completed(receipt), .close])
        link.pump()
        #expect(link.takeSenderEvents() == [.completed(receipt), .close])
        #expect(link.sender.state == .done && link.receiver.state == .done)
    }

    @Test func anOfferSpanningSeveralFramesIsDecidedOnlyWhenComplete() throws {
        let entries = (0..<50).map { ManifestEntry(kind: .file, path: "file-\($0).txt", mode: 0o644, size: 1) }
        let manifest = try Manifest(entries: entries)
        let frames = OfferCodec.frames(for: manifest, maxPayload: 200)
        #expect(frames.count > 5)
        var receiver = ReceiverSession(localName: "desk")
        _ = receiver.receive(.hello(Hello(name: "laptop")))
        _ = receiver.answerHello(features: [], flags: [])
        for frame in frames.dropLast() { #expect(receiver.receive(frame) == []) }
        #expect(receiver.receive(frames.last!) == [.decide(peer: Hello(name: "laptop"), manifest: manifest)])

        // More entries than announced, and an ENTRIES frame out of place, are refused.
        var overflowing = ReceiverSession(localName: "desk")
        _ = overflowing.receive(.hello(Hello(name: "laptop")))
        _ = overflowing.answerHello(features: [], flags: [])
        _ = overflowing.receive(.offer(OfferStart(entryCount: 1, totalBytes: 0), entries: [entries[0]]))
        #expect(overflowing.state == .failed, "the one entry had a size the total did not declare")
        var extra = ReceiverSession(localName: "desk")
        _ = extra.receive(.hello(Hello(name: "laptop")))
        _ = extra.answerHello(features: [], flags: [])
        _ = extra.receive(.offer(OfferStart(entryCount: 2, totalBytes: 3), entries: [entries[0]]))
        #expect(extra.receive(.entries([entries[1], entries[2]])).contains { if case .failed = $0 { true } else { false } })
        var stray = ReceiverSession(localName: "desk")
        _ = stray.receive(.hello(Hello(name: "laptop")))
        _ = stray.answerHello(features: [], flags: [])
        #expect(stray.receive(.entries([entries[0]])).contains(.failed(.protocolViolation(.unexpectedFrame(.entries, expected: "OFFER or PAIR")))))
    }

    @Test func anOfferWhoseEntriesTakeTooMuchMemoryIsRefusedWhileItArrives() throws {
        // Each entry is 28 bytes plus its path (10 bytes): 38. A limit of 100 bytes holds 2.
        let entries = (0..<4).map { ManifestEntry(kind: .file, path: "file-\($0).txt", mode: 0o644, size: 1) }
        #expect(entries[0].encodedSize == 38)
        let limits = ManifestLimits(maxOfferBytes: 100)
        #expect(throws: ManifestError.offerTooLarge(bytes: 114, limit: 100)) {
            try Manifest(entries: Array(entries.prefix(3)), limits: limits)
        }
        var receiver = ReceiverSession(localName: "desk", limits: limits)
        _ = receiver.receive(.hello(Hello(name: "laptop")))
        _ = receiver.answerHello(features: [], flags: [])
        #expect(receiver.receive(.offer(OfferStart(entryCount: 4, totalBytes: 4), entries: ManifestEntries(entries.prefix(2)))) == [])
        let refused = receiver.receive(.entries([entries[2]]))
        #expect(
            refused.contains(
                .send(.error(PeerError(.limitExceeded, "the offer was refused: the list of files takes 114 bytes (the limit is 100 bytes): send fewer files at once")))),
            "\(refused)")
        #expect(receiver.state == .failed)
    }

    @Test func aReceiverThatRefusesAtOnceNeverSeesTheOffer() {
        var link = Link()
        link.route(link.sender.start(Hello(name: "laptop")))
        link.pump()
        _ = link.takeReceiverEvents()
        let busy = Decision(.busy, message: "the receiver is busy with 16 transfers")
        link.route(link.receiver.answerHello(features: [.resume], flags: [.attended], refusal: busy))
        #expect(link.takeReceiverEvents() == [.declined(busy), .close])
        link.pump()
        #expect(link.takeSenderEvents() == [.greeted(Hello(name: "desk", features: [.resume], flags: [.attended, .decided])), .declined(busy), .close])
        #expect(link.sender.offer(Self.manifest) == [], "the sender sends no offer to a receiver that decided")
    }

    @Test func bothUsersMustConfirmTheCodeBeforeDataFlowsAndAPinIsWritten() {
        for userFirst in [true, false] {
            var link = Link()
            link.greet(senderFlags: [.attended, .compare], receiverFlags: [.attended, .compare])
            #expect(link.sender.receiverShowsCode)
            #expect(link.takeReceiverEvents() == [.decide(peer: Hello(name: "laptop", flags: [.attended, .compare]), manifest: Self.manifest)])
            if userFirst {
                link.route(link.sender.userAnswered(.confirmed))
                link.pump()
                #expect(link.takeReceiverEvents() == [], "no pin before the receiver's own user accepted")
                link.route(link.receiver.decided(.accept))
                #expect(link.takeReceiverEvents() == [.mutuallyVerified])
                link.pump()
                #expect(link.takeSenderEvents() == [.stream(have: [])])
            } else {
                link.route(link.receiver.decided(.accept))
                link.pump()
                #expect(link.takeSenderEvents() == [], "the sender waits for its own user")
                #expect(link.takeReceiverEvents() == [])
                link.route(link.sender.userAnswered(.confirmed))
                #expect(link.takeSenderEvents() == [.stream(have: [])])
                link.pump()
                #expect(link.takeReceiverEvents() == [.mutuallyVerified])
            }
        }
    }

    @Test func dataBeforeTheSenderConfirmedTheCodeIsRefused() {
        var link = Link()
        link.greet(senderFlags: [.attended, .compare], receiverFlags: [.attended, .compare])
        _ = link.takeReceiverEvents()
        link.route(link.receiver.decided(.accept))
        let actions = link.receiver.receive(.data(DataChunk(fileIndex: 0, offset: 0, bytes: [1])))
        #expect(actions.contains(.failed(.protocolViolation(.unexpectedFrame(.data, expected: "VERIFY before any DATA")))))
    }

    @Test func aRejectedCodeCancelsBothSidesAndPinsNothing() {
        var link = Link()
        link.greet(senderFlags: [.attended], receiverFlags: [.attended, .compare])
        _ = link.takeReceiverEvents()
        link.route(link.sender.userAnswered(.rejected))
        #expect(link.takeSenderEvents() == [
            .failed(.local(PeerError(.cancelled, "you said the codes differ: someone may be intercepting; nothing was sent"))),
            .close,
        ])
        link.pump()
        #expect(link.takeReceiverEvents() == [
            .codeRejectedBySender,
            .failed(.remote(PeerError(.cancelled, "the sender's user said the verification codes differ"))), .close,
        ])
    }

    @Test func aCodeToCompareWhereNobodyCanCompareItIsRefusedAtOnce() {
        // An unattended sender (no ATTENDED), or a receiver that says nobody is there: §6 forbids COMPARE.
        for (senderFlags, receiverFlags, why) in [
            (HelloFlags(), HelloFlags([.attended, .compare]), "nobody is at this sender to compare it"),
            (HelloFlags([.attended, .compare]), HelloFlags([.compare]), "with nobody there to see it"),
        ] {
            var sender = SenderSession()
            _ = sender.start(Hello(name: "laptop", flags: senderFlags))
            let actions = sender.receive(.hello(Hello(name: "desk", flags: receiverFlags)))
            #expect(sender.state == .failed, "nothing is offered, and nothing waits for an answer")
            guard case .send(.error(let told))? = actions.first, case .failed(.protocolViolation(let error))? = actions.dropFirst().first
            else {
                Issue.record("expected ERROR then a failure: \(actions)")
                continue
            }
            #expect(told.code == .protocolViolation)
            #expect("\(error)".contains(why) && "\(error)".contains("PROTOCOL.md §6"), "\(error)")
            #expect(actions.last == .close)
        }
    }

    @Test func aVerifyThatWasNotAskedForIsAViolation() {
        var link = Link()
        link.greet(senderFlags: [.attended], receiverFlags: [])
        _ = link.takeReceiverEvents()
        #expect(link.sender.userAnswered(.confirmed) == [], "nothing to answer when the receiver shows no code")
        let actions = link.receiver.receive(.verify(.confirmed))
        #expect(actions.contains(.failed(.protocolViolation(.unexpectedFrame(.verify, expected: "no VERIFY (this side shows no code)")))))
    }

    @Test func aPairingNeedsBothUsers() {
        for (receiverAccepts, senderConfirms) in [(true, true), (true, false), (false, true)] {
            var link = Link()
            link.route(link.sender.start(Hello(name: "laptop", flags: [.attended, .compare])))
            link.pump()
            _ = link.takeReceiverEvents()
            link.route(link.receiver.answerHello(features: [], flags: [.attended, .compare]))
            link.pump()
            _ = link.takeSenderEvents()
            link.route(link.sender.pair())
            link.pump()
            #expect(link.takeReceiverEvents() == [.verify(peer: Hello(name: "laptop", flags: [.attended, .compare]))])
            let decision = receiverAccepts ? Decision.accept : Decision(.declinedByUser, message: "the codes differ")
            link.route(link.receiver.decided(decision))
            link.route(link.sender.userAnswered(senderConfirms ? .confirmed : .rejected))
            link.pump()
            let receiverEvents = link.takeReceiverEvents()
            let senderEvents = link.takeSenderEvents()
            if receiverAccepts && senderConfirms {
                #expect(receiverEvents == [.mutuallyVerified, .verified, .close])
                #expect(senderEvents == [.verified, .close])
            } else {
                #expect(!receiverEvents.contains(.mutuallyVerified) && !receiverEvents.contains(.verified))
                #expect(!senderEvents.contains(.verified))
            }
        }
        // A receiver that shows no code declines a PAIR: it has nobody to ask (§4 PAIR).
        var receiver = ReceiverSession(localName: "desk")
        _ = receiver.receive(.hello(Hello(name: "laptop")))
        _ = receiver.answerHello(features: [], flags: [])
        let nobody = Decision(.nobodyToAsk, message: ReceiverSession.nobodyToCompare)
        #expect(receiver.receive(.pair) == [.send(.decision(nobody)), .declined(nobody), .close])
    }

    @Test func resumptionContinuesAtTheOffsetTheReceiverHolds() throws {
        let manifest = try Manifest(entries: [
            ManifestEntry(kind: .file, path: "big.iso", mode: 0o644, size: 10),
            ManifestEntry(kind: .file, path: "done.txt", mode: 0o644, size: 4),
            ManifestEntry(kind: .file, path: "new.txt", mode: 0o644, size: 2),
        ])
        let have = [
            HaveRecord(fileIndex: 0, offset: 6, sha256: Self.digest), HaveRecord(fileIndex: 1, offset: 4, sha256: Self.digest),
        ]
        var link = Link()
        link.greet(features: [.resume], manifest: manifest)
        _ = link.takeReceiverEvents()
        link.route(link.receiver.decided(.accept, have: have))
        #expect(link.toSender == [.decision(Decision(.accepted, haveCount: 2)), .have(have)])
        link.pump()
        #expect(link.takeSenderEvents() == [.stream(have: have)])

        // File 0 continues at 6, file 1 is held whole (FILE_END alone), file 2 starts at 0.
        link.toReceiver = [
            .data(DataChunk(fileIndex: 0, offset: 6, bytes: [7, 8, 9, 10])), .fileEnd(fileIndex: 0, sha256: Self.digest),
            .fileEnd(fileIndex: 1, sha256: Self.digest),
            .data(DataChunk(fileIndex: 2, offset: 0, bytes: [1, 2])), .fileEnd(fileIndex: 2, sha256: Self.digest),
        ]
        link.pump()
        #expect(link.takeReceiverEvents() == [
            .openFile(fileIndex: 0, offset: 6), .write(fileIndex: 0, chunk: DataChunk(fileIndex: 0, offset: 6, bytes: [7, 8, 9, 10])),
            .closeFile(fileIndex: 0, sha256: Self.digest), .openFile(fileIndex: 1, offset: 4),
            .closeFile(fileIndex: 1, sha256: Self.digest), .openFile(fileIndex: 2, offset: 0),
            .write(fileIndex: 2, chunk: DataChunk(fileIndex: 2, offset: 0, bytes: [1, 2])),
            .closeFile(fileIndex: 2, sha256: Self.digest), .commit,
        ])

        // A sender whose source changed restarts the file at 0; any other offset is refused.
        var restart = Link()
        restart.greet(features: [.resume], manifest: manifest)
        _ = restart.takeReceiverEvents()
        restart.route(restart.receiver.decided(.accept, have: have))
        #expect(restart.receiver.receive(.data(DataChunk(fileIndex: 0, offset: 0, bytes: [1]))).first == .openFile(fileIndex: 0, offset: 0))
        var wrong = Link()
        wrong.greet(features: [.resume], manifest: manifest)
        _ = wrong.takeReceiverEvents()
        wrong.route(wrong.receiver.decided(.accept, have: have))
        #expect(wrong.receiver.receive(.data(DataChunk(fileIndex: 0, offset: 3, bytes: [1]))).contains { if case .failed = $0 { true } else { false } })
    }

    @Test func resumptionIsAnnouncedOnlyWhenBothSidesSupportIt() {
        var link = Link()
        link.greet(features: [])
        _ = link.takeReceiverEvents()
        link.route(link.receiver.decided(.accept, have: [HaveRecord(fileIndex: 0, offset: 1, sha256: Self.digest)]))
        #expect(link.toSender == [.decision(.accept)])
    }

    @Test func theSenderRefusesHaveRecordsThatDoNotFitTheOffer() {
        let cases: [[HaveRecord]] = [
            [HaveRecord(fileIndex: 5, offset: 1, sha256: Self.digest)],
            [HaveRecord(fileIndex: 0, offset: 4, sha256: Self.digest)],
            [HaveRecord(fileIndex: 0, offset: 0, sha256: Self.digest)],
            [HaveRecord(fileIndex: 1, offset: 1, sha256: Self.digest), HaveRecord(fileIndex: 0, offset: 1, sha256: Self.digest)],
        ]
        for records in cases {
            var sender = SenderSession()
            _ = sender.start(Hello(name: "laptop", features: [.resume]))
            _ = sender.receive(.hello(Hello(name: "desk", features: [.resume])))
            _ = sender.offer(Self.manifest)
            _ = sender.receive(.decision(Decision(.accepted, haveCount: 2)))
            #expect(sender.receive(.have(records)).contains { if case .failed = $0 { true } else { false } }, "\(records)")
        }
        var tooMany = SenderSession()
        _ = tooMany.start(Hello(name: "laptop", features: [.resume]))
        _ = tooMany.receive(.hello(Hello(name: "desk", features: [.resume])))
        _ = tooMany.offer(Self.manifest)
        _ = tooMany.receive(.decision(Decision(.accepted, haveCount: 1)))
        let two = [HaveRecord(fileIndex: 0, offset: 1, sha256: Self.digest), HaveRecord(fileIndex: 1, offset: 1, sha256: Self.digest)]
        #expect(tooMany.receive(.have(two)).contains { if case .failed = $0 { true } else { false } })
    }

    @Test func compressedDataNeedsTheFeatureOnBothSides() {
        for features: HelloFeatures in [[], [.zstd]] {
            var link = Link()
            link.greet(features: features)
            _ = link.takeReceiverEvents()
            link.route(link.receiver.decided(.accept))
            let chunk = DataChunk(fileIndex: 0, offset: 0, encoding: .zstd(rawLength: 3), bytes: [0x28, 0xB5])
            let actions = link.receiver.receive(.data(chunk))
            if features.contains(.zstd) {
                #expect(actions == [.openFile(fileIndex: 0, offset: 0), .write(fileIndex: 0, chunk: chunk)])
            } else {
                #expect(actions.contains { if case .failed = $0 { true } else { false } })
            }
        }
    }

    func acceptedReceiver() -> ReceiverSession {
        var link = Link()
        link.greet()
        link.route(link.receiver.decided(.accept))
        return link.receiver
    }

    @Test func refusesDataBeyondTheOfferedSize() {
        var receiver = acceptedReceiver()
        let actions = receiver.receive(.data(DataChunk(fileIndex: 0, offset: 0, bytes: [1, 2, 3, 4])))
        let error = WireError.sizeMismatch(path: "a.txt", offered: 3, received: 4)
        #expect(actions == [
            .send(.error(PeerError(.sizeMismatch, error.description))), .failed(.protocolViolation(error)), .close,
        ])
        #expect(receiver.state == .failed)
    }

    @Test func refusesAFileThatEndsShort() {
        var receiver = acceptedReceiver()
        _ = receiver.receive(.data(DataChunk(fileIndex: 0, offset: 0, bytes: [1])))
        let actions = receiver.receive(.fileEnd(fileIndex: 0, sha256: Self.digest))
        #expect(actions.contains(.failed(.protocolViolation(.sizeMismatch(path: "a.txt", offered: 3, received: 1)))))
    }

    @Test func refusesFramesOutOfOrder() {
        var receiver = acceptedReceiver()
        let wrongFile = receiver.receive(.data(DataChunk(fileIndex: 1, offset: 0, bytes: [1])))
        #expect(wrongFile.contains(.failed(.protocolViolation(.unexpectedFrame(.data, expected: "DATA or FILE_END for file 0")))))

        var gap = acceptedReceiver()
        _ = gap.receive(.data(DataChunk(fileIndex: 0, offset: 0, bytes: [1])))
        #expect(gap.receive(.data(DataChunk(fileIndex: 0, offset: 2, bytes: [1]))).contains(
            .failed(.protocolViolation(.unexpectedFrame(.data, expected: "DATA for file 0 at offset 1")))))

        var link = Link()
        link.greet()
        let beforeDecision = link.receiver.receive(.data(DataChunk(fileIndex: 0, offset: 0, bytes: [1])))
        #expect(beforeDecision.contains(.failed(.protocolViolation(.unexpectedFrame(.data, expected: "nothing (the receiver is deciding)")))))

        var noHello = ReceiverSession(localName: "desk")
        let offer = OfferCodec.frames(for: Self.manifest)[0]
        #expect(noHello.receive(offer).contains(.failed(.protocolViolation(.unexpectedFrame(.offer, expected: "HELLO")))))
        var unanswered = ReceiverSession(localName: "desk")
        _ = unanswered.receive(.hello(Hello(name: "laptop")))
        #expect(unanswered.receive(offer).contains(.failed(.protocolViolation(.unexpectedFrame(.offer, expected: "nothing (the receiver is answering HELLO)")))))
    }

    @Test func aDeclineEndsBothSides() {
        var link = Link()
        link.greet()
        _ = link.takeReceiverEvents()
        let decision = Decision(.nobodyToAsk, message: "no terminal")
        #expect(link.receiver.decided(decision) == [.send(.decision(decision)), .declined(decision), .close])
        #expect(link.sender.receive(.decision(decision)) == [.declined(decision), .close])
    }

    @Test func aLostConnectionIsReportedWithWhereItHappened() {
        var receiver = acceptedReceiver()
        _ = receiver.receive(.data(DataChunk(fileIndex: 0, offset: 0, bytes: [1])))
        #expect(receiver.connectionClosed() == [.failed(.connectionLost(during: "while receiving file 1 of 2")), .close])
        var sender = SenderSession()
        _ = sender.start(Hello(name: "laptop"))
        #expect(sender.connectionClosed() == [.failed(.connectionLost(during: "before the receiver answered the offer")), .close])
    }

    @Test func aPeerErrorIsReportedAsRemote() {
        var receiver = acceptedReceiver()
        #expect(receiver.receive(.error(PeerError(.cancelled, "user pressed ^C"))) == [
            .failed(.remote(PeerError(.cancelled, "user pressed ^C"))), .close,
        ])
        var link = Link()
        link.greet()
        link.route(link.receiver.decided(.accept))
        link.pump()
        #expect(link.sender.receive(.error(PeerError(.hashMismatch, "a.txt"))) == [.failed(.remote(PeerError(.hashMismatch, "a.txt"))), .close])
    }

    @Test func aReceiptMustNameEveryItem() {
        var link = Link()
        link.greet()
        link.route(link.receiver.decided(.accept))
        link.pump()
        _ = link.sender.finishedStreaming()
        let actions = link.sender.receive(.receipt(Receipt(items: [ReceiptItem(.placed, "only one")])))
        #expect(actions.contains(.failed(.protocolViolation(.malformed(.receipt, "1 items for 2")))))
    }

    @Test func anOlderPeerIsToldWhatToDo() {
        var receiver = ReceiverSession(localName: "desk")
        let actions = receiver.fail(WireError.unsupportedVersion(peerVersion: 1))
        #expect(actions.first == .send(.error(PeerError(
            .unsupportedVersion, "this receiver speaks share protocol 2 and the sender speaks protocol 1: update share on the sender"))))
        var sender = SenderSession()
        _ = sender.start(Hello(name: "laptop"))
        #expect(sender.fail(WireError.unsupportedVersion(peerVersion: 1)).first == .send(.error(PeerError(
            .unsupportedVersion, "this sender speaks share protocol 2 and the receiver speaks protocol 1: update share on the receiver"))))
    }

    @Test func sanitizesTheDeviceNameItSends() {
        #expect(Hello.sanitizedName("desk\u{1B}[31m") == "desk[31m")
        #expect(Hello.sanitizedName("") == "share")
        #expect(Hello.sanitizedName(String(repeating: "ü", count: 200)).utf8.count <= 255)
    }
}
