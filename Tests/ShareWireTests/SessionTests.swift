import ShareDocuments
import ShareWire
import Testing

@Suite struct SessionTests {
    static let manifest = try! Manifest(entries: [
        ManifestEntry(kind: .file, path: "a.txt", mode: 0o644, size: 3),
        ManifestEntry(kind: .directory, path: "B", mode: 0o755),
        ManifestEntry(kind: .file, path: "B/empty", mode: 0o644, size: 0),
    ])

    /// Drives a sender and a receiver machine against each other in memory, with the given local
    /// decision, and returns the receiver's actions that are not sends.
    @Test func aWholeTransferInMemory() {
        var sender = SenderSession()
        var receiver = ReceiverSession(localName: "desk")
        var toReceiver: [Frame] = []
        var toSender: [Frame] = []
        var receiverEvents: [ReceiverSession.Action] = []
        var senderEvents: [SenderSession.Action] = []

        func route(_ actions: [SenderSession.Action]) {
            for action in actions { if case .send(let f) = action { toReceiver.append(f) } else { senderEvents.append(action) } }
        }
        func route(_ actions: [ReceiverSession.Action]) {
            for action in actions { if case .send(let f) = action { toSender.append(f) } else { receiverEvents.append(action) } }
        }

        route(sender.start(localName: "laptop", manifest: Self.manifest))
        route(receiver.start())
        for frame in toReceiver { route(receiver.receive(frame)) }
        toReceiver = []
        #expect(receiverEvents == [.decide(peer: Hello(name: "laptop"), manifest: Self.manifest)])
        receiverEvents = []
        route(receiver.decided(.accept))
        for frame in toSender { route(sender.receive(frame)) }
        toSender = []
        #expect(senderEvents == [.stream])
        senderEvents = []
        #expect(sender.peer?.name == "desk")

        // Stream: file 0 in two DATA frames, then the empty file.
        for frame: Frame in [
            .data(fileIndex: 0, bytes: [1, 2]), .data(fileIndex: 0, bytes: [3]),
            .fileEnd(fileIndex: 0, sha256: Array(repeating: 9, count: 32)),
            .fileEnd(fileIndex: 1, sha256: Array(repeating: 8, count: 32)),
        ] {
            route(receiver.receive(frame))
        }
        route(sender.finishedStreaming())
        #expect(receiverEvents == [
            .openFile(fileIndex: 0), .write(fileIndex: 0, bytes: [1, 2]), .write(fileIndex: 0, bytes: [3]),
            .closeFile(fileIndex: 0, sha256: Array(repeating: 9, count: 32)),
            .openFile(fileIndex: 1), .closeFile(fileIndex: 1, sha256: Array(repeating: 8, count: 32)),
            .commit,
        ])
        receiverEvents = []
        let receipt = Receipt(locations: ["~/Downloads/a.txt", "~/Downloads/B"])
        route(receiver.committed(receipt))
        #expect(receiverEvents == [.completed(receipt), .close])
        for frame in toSender { route(sender.receive(frame)) }
        #expect(senderEvents == [.completed(receipt), .close])
        #expect(sender.state == .done && receiver.state == .done)
    }

    func acceptedReceiver() -> ReceiverSession {
        var receiver = ReceiverSession(localName: "desk")
        _ = receiver.start()
        _ = receiver.receive(.hello(Hello(name: "laptop")))
        _ = receiver.receive(.offer(Self.manifest))
        _ = receiver.decided(.accept)
        return receiver
    }

    @Test func refusesDataBeyondTheOfferedSize() {
        var receiver = acceptedReceiver()
        let actions = receiver.receive(.data(fileIndex: 0, bytes: [1, 2, 3, 4]))
        let error = WireError.sizeMismatch(path: "a.txt", offered: 3, received: 4)
        #expect(actions == [
            .send(.error(PeerError(.sizeMismatch, error.description))), .failed(.protocolViolation(error)), .close,
        ])
        #expect(receiver.state == .failed)
    }

    @Test func refusesAFileThatEndsShort() {
        var receiver = acceptedReceiver()
        _ = receiver.receive(.data(fileIndex: 0, bytes: [1]))
        let actions = receiver.receive(.fileEnd(fileIndex: 0, sha256: Array(repeating: 0, count: 32)))
        #expect(actions.contains(.failed(.protocolViolation(.sizeMismatch(path: "a.txt", offered: 3, received: 1)))))
    }

    @Test func refusesFramesOutOfOrder() {
        var receiver = acceptedReceiver()
        let wrongFile = receiver.receive(.data(fileIndex: 1, bytes: [1]))
        #expect(wrongFile.contains(.failed(.protocolViolation(.unexpectedFrame(.data, expected: "DATA or FILE_END for file 0")))))

        var early = ReceiverSession(localName: "desk")
        _ = early.start()
        _ = early.receive(.hello(Hello(name: "laptop")))
        _ = early.receive(.offer(Self.manifest))
        let beforeDecision = early.receive(.data(fileIndex: 0, bytes: [1]))
        #expect(beforeDecision.contains(.failed(.protocolViolation(.unexpectedFrame(.data, expected: "nothing (the receiver is deciding)")))))

        var noHello = ReceiverSession(localName: "desk")
        #expect(noHello.receive(.offer(Self.manifest)).contains(.failed(.protocolViolation(.unexpectedFrame(.offer, expected: "HELLO")))))
        var pairAfterOffer = ReceiverSession(localName: "desk")
        _ = pairAfterOffer.receive(.hello(Hello(name: "laptop")))
        _ = pairAfterOffer.receive(.offer(Self.manifest))
        #expect(pairAfterOffer.receive(.pair).contains(.failed(.protocolViolation(.unexpectedFrame(.pair, expected: "nothing (the receiver is deciding)")))))
    }

    @Test func aDeclineEndsBothSides() {
        var receiver = ReceiverSession(localName: "desk")
        _ = receiver.start()
        _ = receiver.receive(.hello(Hello(name: "laptop")))
        _ = receiver.receive(.offer(Self.manifest))
        let decision = Decision(.nobodyToAsk, message: "no terminal")
        #expect(receiver.decided(decision) == [.send(.decision(decision)), .declined(decision), .close])

        var sender = SenderSession()
        _ = sender.start(localName: "laptop", manifest: Self.manifest)
        _ = sender.receive(.hello(Hello(name: "desk")))
        #expect(sender.receive(.decision(decision)) == [.declined(decision), .close])
    }

    @Test func aLostConnectionIsReportedWithWhereItHappened() {
        var receiver = acceptedReceiver()
        _ = receiver.receive(.data(fileIndex: 0, bytes: [1]))
        #expect(receiver.connectionClosed() == [.failed(.connectionLost(during: "while receiving file 1 of 2")), .close])
        var sender = SenderSession()
        _ = sender.start(localName: "laptop", manifest: Self.manifest)
        #expect(sender.connectionClosed() == [.failed(.connectionLost(during: "before the receiver answered the offer")), .close])
    }

    @Test func aPeerErrorIsReportedAsRemote() {
        var receiver = acceptedReceiver()
        #expect(receiver.receive(.error(PeerError(.cancelled, "user pressed ^C"))) == [
            .failed(.remote(PeerError(.cancelled, "user pressed ^C"))), .close,
        ])
        var sender = SenderSession()
        _ = sender.start(localName: "laptop", manifest: Self.manifest)
        _ = sender.receive(.hello(Hello(name: "desk")))
        _ = sender.receive(.decision(.accept))
        #expect(sender.receive(.error(PeerError(.hashMismatch, "a.txt"))) == [.failed(.remote(PeerError(.hashMismatch, "a.txt"))), .close])
    }

    @Test func aReceiptMustNameEveryItem() {
        var sender = SenderSession()
        _ = sender.start(localName: "laptop", manifest: Self.manifest)
        _ = sender.receive(.hello(Hello(name: "desk")))
        _ = sender.receive(.decision(.accept))
        _ = sender.finishedStreaming()
        let actions = sender.receive(.receipt(Receipt(locations: ["only one"])))
        #expect(actions.contains(.failed(.protocolViolation(.malformed(.receipt, "1 locations for 2 items")))))
    }

    @Test func aPairingIsConfirmedOrDeclinedWithoutAnyOffer() {
        for accepted in [true, false] {
            var sender = SenderSession()
            var receiver = ReceiverSession(localName: "desk")
            var toReceiver: [Frame] = []
            for action in sender.startPairing(localName: "laptop") { if case .send(let f) = action { toReceiver.append(f) } }
            #expect(toReceiver == [.hello(Hello(name: "laptop")), .pair])
            var helloBack: [Frame] = []
            for action in receiver.start() { if case .send(let f) = action { helloBack.append(f) } }
            var receiverActions: [ReceiverSession.Action] = []
            for frame in toReceiver { receiverActions += receiver.receive(frame) }
            #expect(receiverActions == [.verify(peer: Hello(name: "laptop"))])
            let decision = accepted ? Decision.accept : Decision(.declinedByUser, message: "the codes differ")
            let answer = receiver.decided(decision)
            #expect(answer == (accepted ? [.send(.decision(decision)), .verified, .close] : [.send(.decision(decision)), .declined(decision), .close]))
            _ = sender.receive(helloBack[0])
            #expect(sender.receive(.decision(decision)) == (accepted ? [.verified, .close] : [.declined(decision), .close]))
        }
        // A PAIR after an OFFER, or data after a PAIR, is a protocol violation.
        var receiver = ReceiverSession(localName: "desk")
        _ = receiver.receive(.hello(Hello(name: "laptop")))
        _ = receiver.receive(.pair)
        #expect(receiver.receive(.data(fileIndex: 0, bytes: [1])).contains(.failed(.protocolViolation(.unexpectedFrame(.data, expected: "nothing (the receiver is deciding)")))))
    }

    @Test func sanitizesTheDeviceNameItSends() {
        #expect(Hello.sanitizedName("desk\u{1B}[31m") == "desk[31m")
        #expect(Hello.sanitizedName("") == "share")
        #expect(Hello.sanitizedName(String(repeating: "ü", count: 200)).utf8.count <= 255)
    }
}
