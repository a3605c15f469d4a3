import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Identity is the key, never the name: verification codes compared by both users or not
/// at all, pins keyed by fingerprint, keys checked before anything is sent, honest names, prompts
/// that behave, and messages a user can act on. Both sides run as the real `share`, on
/// pseudo-terminals wherever a person is involved.
@Suite(.serialized) struct TrustEndToEndTests {
    /// A receiver on a terminal, and its port.
    func terminalReceiver(_ machine: TestMachine, _ dir: TemporaryDirectory, _ more: [String] = [], extra: [String: String] = [:])
        throws -> (PseudoTerminalProcess, Int)
    {
        let receiver = machine.interactive(["receive", "--port", "0", "--dir", dir.at("inbox")] + more, extra: extra)
        #expect(receiver.waitForOutput(containing: "Press Ctrl-C to stop."))
        let port = try #require(
            receiver.output.split(separator: " ").drop { $0 != "port" }.dropFirst().first.flatMap { Int($0) })
        return (receiver, port)
    }

    /// `share receive --json` without a terminal, and its port.
    func jsonReceiver(_ machine: TestMachine, _ folder: String, _ more: [String]) throws -> (RunningShare, Int) {
        let receiver = machine.start(["receive", "--port", "0", "--dir", folder] + more + ["--json"])
        return (receiver, Int(try #require(receiver.listeningPort())))
    }

    /// The 12-digit code shown after `marker` (the last one, if several).
    func code(after marker: String, in text: String) -> String? {
        guard let range = text.range(of: marker, options: .backwards) else { return nil }
        let digits = text[range.upperBound...].drop { $0 == " " }.prefix(15)
        return digits.count == 15 && digits.filter(\.isNumber).count == 12 ? String(digits) : nil
    }

    /// Types on `terminal` the last 3 digits of the code shown there after `marker`, as the person
    /// who compared the codes does to confirm them.
    func confirmCode(on terminal: PseudoTerminalProcess, after marker: String = "Verification code:") {
        let shown = code(after: marker, in: terminal.output) ?? ""
        // A person answers a while after the question appeared; keys typed before it are discarded.
        usleep(200_000)
        terminal.type(String(shown.suffix(3)) + "\n")
    }

    func verifiedNames(_ machine: TestMachine) -> [String] {
        let list = jsonObject(machine.run(["trust", "list", "--json"]).stdout.replacingOccurrences(of: "\n", with: ""))
        return ((list?["verified"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String }
    }

    func fingerprint(_ machine: TestMachine) throws -> String {
        let identity = jsonObject(machine.run(["identity", "--json"]).stdout.replacingOccurrences(of: "\n", with: ""))
        return try #require(identity?["fingerprint"] as? String)
    }

    /// `alice` and `bob` compare codes with `share trust verify` and remember each other.
    func pair(_ alice: TestMachine, _ bob: TestMachine, _ dir: TemporaryDirectory) throws {
        let (receiver, port) = try terminalReceiver(bob, dir)
        defer {
            receiver.interrupt()
            _ = receiver.wait()
        }
        let verifier = alice.interactive(["trust", "verify", "127.0.0.1:\(port)"])
        #expect(verifier.waitForOutput(containing: "show the same code? Type its last 3 digits to confirm (Enter alone: no):"))
        #expect(receiver.waitForOutput(containing: "show the same code? Type its last 3 digits to confirm (Enter alone: no):"))
        let shownToAlice = code(after: "Verification code:", in: verifier.output)
        let shownToBob = code(after: "  code ", in: receiver.output.components(separatedBy: "asks to verify").last ?? "")
        #expect(shownToAlice != nil && shownToAlice == shownToBob, "both sides show the same code")
        confirmCode(on: verifier)
        confirmCode(on: receiver, after: "  code ")
        #expect(verifier.wait() == 0)
        #expect(verifier.output.contains("both sides confirmed the code and remember each other"))
        #expect(receiver.waitForOutput(containing: "it is remembered."))
    }

    // MARK: Verification is mutual or it does not happen

    @Test func bothUsersCompareTheSameCodeAndOnlyThenBothRemember() throws {
        let dir = TemporaryDirectory("trust-mutual")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("note.txt"), "hello")
        let (receiver, port) = try terminalReceiver(bob, dir, ["--once"])
        let sender = alice.interactive(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(sender.waitForOutput(containing: "Does \"bob\" show the same code? Type its last 3 digits to confirm (Enter alone: no):"))
        #expect(
            receiver.waitForOutput(
                containing: "Does \"alice\" show the same code? Type its last 3 digits to accept and remember \"alice\" as verified (Enter alone: no):"))
        // The sender says whom it waits for; both show the same code at the same time.
        #expect(sender.output.contains("Waiting for \"bob\" to accept…"))
        let senderCode = code(after: "Verification code:", in: sender.output)
        let receiverCode = code(after: "Verification code:", in: receiver.output)
        #expect(senderCode != nil && senderCode == receiverCode)
        // Nothing is remembered before both answered.
        confirmCode(on: sender)
        let typed = String(senderCode?.suffix(3) ?? "")
        #expect(sender.waitForOutput(containing: "Does \"bob\" show the same code? Type its last 3 digits to confirm (Enter alone: no): \(typed)"))
        #expect(verifiedNames(bob).isEmpty && verifiedNames(alice).isEmpty)
        confirmCode(on: receiver)
        #expect(sender.wait() == 0)
        #expect(receiver.wait() == 0)
        #expect(sender.output.contains("Sent 1 item to \"bob\" (verified now)"))
        #expect(FileTree.allPaths(dir.at("inbox")) == ["note.txt"])
        #expect(verifiedNames(alice) == ["bob"])
        #expect(verifiedNames(bob) == ["alice"])
    }

    @Test func aReceiverThatAcceptsWithoutAskingShowsNoCodeAndNothingIsPinned() throws {
        let dir = TemporaryDirectory("trust-blind")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("note.txt"), "hello")
        let (receiver, port) = try jsonReceiver(bob, dir.at("inbox"), ["--accept", "everyone"])
        let sender = alice.interactive(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(sender.wait() == 0)
        #expect(!sender.output.contains("[y/N]"), "nobody is asked to confirm a code the receiver never showed")
        #expect(sender.output.contains("Note: \"bob\" is not verified (it accepts without asking a person, so it showed no code)"))
        #expect(
            sender.output.contains("on a terminal: share trust verify '127.0.0.1:\(port)'\r\n"),
            "the suggested command names how bob was reached, and pastes into a shell")
        #expect(verifiedNames(alice).isEmpty)
        // The note is said once per receiver, not on every send.
        let again = alice.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(again.status == 0)
        #expect(!again.stderr.contains("Note:"))
        receiver.signal(SIGTERM)
        _ = receiver.wait()
        #expect(verifiedNames(bob).isEmpty)
    }

    @Test func anUnattendedSenderIsNeverPinnedByTheReceiver() throws {
        let dir = TemporaryDirectory("trust-unattended")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("note.txt"), "hello")
        let (receiver, port) = try terminalReceiver(bob, dir, ["--once"])
        let sender = alice.start(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(receiver.waitForOutput(containing: "Accept? [y/N]"))
        #expect(receiver.output.contains("\"alice\" (new: not verified) at 127.0.0.1:"))
        #expect(receiver.output.contains("sends unattended and shows no verification code: accepting does not verify it."))
        #expect(!receiver.output.contains("Verification code:"))
        receiver.type("y\n")
        #expect(sender.wait(timeout: .seconds(30)).status == 0)
        #expect(receiver.wait() == 0)
        #expect(verifiedNames(bob).isEmpty, "accepting an unattended sender does not verify it")
    }

    @Test func whenTheSenderSeesAnotherCodeNothingIsSentAndNothingRemembered() throws {
        let dir = TemporaryDirectory("trust-mismatch")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("note.txt"), "hello")
        let (receiver, port) = try terminalReceiver(bob, dir, ["--once"])
        let sender = alice.interactive(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(sender.waitForOutput(containing: "show the same code? Type its last 3 digits to confirm (Enter alone: no):"))
        #expect(receiver.waitForOutput(containing: "(Enter alone: no):"))
        sender.type("n\n")
        #expect(sender.wait() == 1)
        #expect(sender.output.contains("you said \"bob\" shows another code: someone may be intercepting the connection"))
        // The receiver's question is withdrawn at once, with the reason.
        #expect(receiver.waitForOutput(containing: "(the sender's user said the verification codes differ)"))
        #expect(receiver.waitForOutput(containing: "the sender's user said the verification codes differ"))
        receiver.interrupt()
        _ = receiver.wait()
        #expect(FileTree.allPaths(dir.at("inbox")).isEmpty)
        #expect(verifiedNames(alice).isEmpty && verifiedNames(bob).isEmpty)
    }

    @Test func verifyingAReceiverThatCannotShowACodeFailsBeforeAskingAnything() throws {
        let dir = TemporaryDirectory("trust-verify-unattended")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        let (receiver, port) = try jsonReceiver(bob, dir.at("inbox"), ["--accept", "everyone"])
        let verifier = alice.interactive(["trust", "verify", "127.0.0.1:\(port)"])
        #expect(verifier.wait() == 1)
        #expect(verifier.output.contains("\"bob\" cannot show a verification code: it decides without asking a person"))
        #expect(!verifier.output.contains("[y/N]"), "the user is not asked to confirm a code nobody shows")
        receiver.signal(SIGTERM)
        _ = receiver.wait()
    }

    @Test func verifyingAgainSaysThePeerIsVerifiedAlready() throws {
        let dir = TemporaryDirectory("trust-verify-again")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        try pair(alice, bob, dir)
        let (receiver, port) = try terminalReceiver(bob, dir)
        let verifier = alice.interactive(["trust", "verify", "127.0.0.1:\(port)"])
        #expect(verifier.waitForOutput(containing: "show the same code? Type its last 3 digits to confirm (Enter alone: no):"))
        #expect(verifier.output.contains("\"bob\" (verified)"))
        #expect(verifier.output.contains("It is verified already; comparing again."))
        #expect(!verifier.output.contains("new: not verified"))
        #expect(receiver.waitForOutput(containing: "show the same code? Type its last 3 digits to confirm (Enter alone: no):"))
        confirmCode(on: verifier)
        confirmCode(on: receiver, after: "  code ")
        #expect(verifier.wait() == 0)
        #expect(verifier.output.contains("(verified before as \"bob\"; confirmed again)"))
        receiver.interrupt()
        _ = receiver.wait()
    }

    // MARK: Pins are keyed by fingerprint, never matched by name

    @Test func anotherMachineWithAVerifiedNameIsADifferentUnverifiedMachine() throws {
        let dir = TemporaryDirectory("trust-same-name")
        let vm = TestMachine("vm", in: dir)
        let otherVM = TestMachine("othervm", in: dir)
        _ = otherVM.run(["identity", "set-name", "vm"])
        let bob = TestMachine("bob", in: dir)
        try pair(vm, bob, dir)
        FileTree.writeText(dir.at("note.txt"), "hello")

        // Receiving: the second "vm" is accepted under --accept everyone (it is a stranger, not a
        // changed key), flagged as not the verified one; the verified "vm" is unaffected.
        let (receiver, port) = try jsonReceiver(bob, dir.at("inbox"), ["--accept", "everyone"])
        let stranger = otherVM.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(stranger.status == 0, "\(stranger.stderr)")
        #expect(receiver.waitForOutput(containing: "\"event\":\"received\""))
        let event = try #require(jsonLines(receiver.stdout).first { $0["event"] as? String == "received" })
        let peer = try #require(event["peer"] as? [String: Any])
        #expect(peer["verified"] as? Bool == false)
        #expect((peer["claimsNameOf"] as? String)?.count == 64, "flagged as claiming a verified peer's name")
        #expect(vm.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"]).status == 0)
        receiver.signal(SIGTERM)
        _ = receiver.wait()
        #expect(verifiedNames(bob) == ["vm"])

        // Refused under --accept trusted before its offer: the declined event flags it the same way.
        let (strict, strictPort) = try jsonReceiver(bob, dir.at("inbox"), ["--accept", "trusted"])
        #expect(otherVM.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(strictPort)"]).status != 0)
        #expect(strict.waitForOutput(containing: "\"event\":\"declined\""))
        let declined = try #require(jsonLines(strict.stdout).first { $0["event"] as? String == "declined" })
        let refusedPeer = try #require(declined["peer"] as? [String: Any])
        #expect(refusedPeer["verified"] as? Bool == false)
        #expect(refusedPeer["claimsNameOf"] as? String == peer["claimsNameOf"] as? String, "a refused namesake is flagged too")
        strict.signal(SIGTERM)
        _ = strict.wait()

        // Under ask, the prompt says so.
        let (asking, askPort) = try terminalReceiver(bob, dir, ["--once"])
        let again = otherVM.start(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(askPort)"])
        #expect(asking.waitForOutput(containing: "Accept? [y/N]"))
        #expect(asking.output.contains("\"vm\" (NOT the \"vm\" you verified, whose key is "))
        asking.type("n\n")
        _ = again.wait(timeout: .seconds(30))
        _ = asking.wait()

        // Sending: "bob" verified; a different machine called "bob" is reached by address and is
        // simply not verified (never "key changed").
        let otherBob = TestMachine("otherbob", in: dir)
        _ = otherBob.run(["identity", "set-name", "bob"])
        let (second, secondPort) = try jsonReceiver(otherBob, dir.at("inbox2"), ["--accept", "everyone"])
        let sent = vm.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(secondPort)", "--json"])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(jsonObject(sent.stdout)?["verification"] as? String == "unverified")
        #expect(verifiedNames(vm) == ["bob"], "the verified bob's trust is untouched")
        second.signal(SIGTERM)
        _ = second.wait()
    }

    // MARK: Names are bound to keys

    @Test func aVerifiedPeerIsShownWithItsPinnedNameWhateverItCallsItself() throws {
        let dir = TemporaryDirectory("trust-rename")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        let carol = TestMachine("carol", in: dir)
        try pair(alice, bob, dir)
        try pair(carol, bob, dir)
        _ = alice.run(["identity", "set-name", "carol"])
        FileTree.writeText(dir.at("note.txt"), "hello")
        let (receiver, port) = try terminalReceiver(bob, dir, ["--once"])
        let sender = alice.start(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(receiver.waitForOutput(containing: "[y/N]"))
        #expect(receiver.output.contains("\"alice\" (verified), calling itself \"carol\""))
        receiver.type("y\n")
        #expect(sender.wait(timeout: .seconds(30)).status == 0)
        #expect(receiver.wait() == 0)
        #expect(Set(verifiedNames(bob)) == ["alice", "carol"], "the pins keep their names")
    }

    @Test func theSendSummaryCallsAVerifiedReceiverVerifiedAsItsJSONDoes() throws {
        let dir = TemporaryDirectory("trust-summary")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        try pair(alice, bob, dir)
        FileTree.writeText(dir.at("note.txt"), "hello")
        let (receiver, port) = try jsonReceiver(bob, dir.at("inbox"), ["--accept", "trusted"])
        // "bob" still calls itself by the name it was verified under.
        let sent = alice.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stdout.hasPrefix("Sent 1 item to \"bob\" (verified) at 127.0.0.1:"), "\(sent.stdout)")
        #expect(!sent.stdout.contains("not verified") && !sent.stderr.contains("not verified"))
        let json = alice.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)", "--json"])
        let peer = jsonObject(json.stdout)?["peer"] as? [String: Any]
        #expect(peer?["verified"] as? Bool == true)
        #expect(peer?["verifiedAs"] as? String == "bob")
        receiver.signal(SIGTERM)
        _ = receiver.wait()
    }

    // MARK: The prompt can be interrupted

    @Test(arguments: [SIGINT, SIGTERM]) func stoppingAReceiverThatAsksEndsAtOnceAndTellsTheSender(_ signal: Int32) throws {
        let dir = TemporaryDirectory("trust-interrupt")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("note.txt"), "hello")
        let (receiver, port) = try terminalReceiver(bob, dir)
        let sender = alice.start(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(receiver.waitForOutput(containing: "Accept? [y/N]"))
        let stopped = ContinuousClock.now
        if signal == SIGINT { receiver.interrupt() } else { receiver.signalProgram(SIGTERM) }
        #expect(receiver.wait(timeout: .seconds(10)) == 128 + signal)
        #expect(ContinuousClock.now - stopped < .seconds(10), "not after the prompt's 5 minutes")
        let sent = sender.wait(timeout: .seconds(30))
        #expect(sent.status == 1)
        #expect(sent.stderr.contains("the receiver was stopped by its user"), "\(sent.stderr)")
        #expect(FileTree.allPaths(dir.at("inbox")).isEmpty)
        #expect(FileTree.allPaths(bob.inbox).filter { !$0.hasPrefix(".share-staging") }.isEmpty)
        #expect(FileTree.allPaths(bob.inbox + "/.share-staging").isEmpty, "no staging left behind")
    }

    // MARK: Prompts behave

    @Test func keysTypedBeforeTheQuestionAnswerNothingAndCodesAreConfirmedByTheirDigits() throws {
        let dir = TemporaryDirectory("trust-typed-ahead")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("note.txt"), "hello")
        let (receiver, port) = try terminalReceiver(bob, dir, ["--once"])
        // Someone types y and Enter into the idle receiver's terminal, before anyone offers anything.
        receiver.type("y\r")
        usleep(500_000)
        let sender = alice.interactive(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(sender.waitForOutput(containing: "Does \"bob\" show the same code? Type its last 3 digits to confirm (Enter alone: no):"))
        #expect(receiver.waitForOutput(containing: "Verification code:"))
        let shown = try #require(code(after: "Verification code:", in: sender.output))
        #expect(code(after: "Verification code:", in: receiver.output) == shown)
        // The sender's user compares the codes and confirms; the receiver's question still waits.
        confirmCode(on: sender)
        usleep(1_500_000)
        #expect(!receiver.output.contains("[y/N] y"), "the y typed ahead answered nothing")
        #expect(receiver.isRunning && sender.isRunning, "the receiver still asks")
        #expect(
            receiver.output.contains(
                "Does \"alice\" show the same code? Type its last 3 digits to accept and remember \"alice\" as verified (Enter alone: no):"))
        #expect(verifiedNames(bob).isEmpty && verifiedNames(alice).isEmpty)
        #expect(FileTree.allPaths(dir.at("inbox")).isEmpty)
        // A y typed at the question does not confirm a code either: it is asked once more.
        let typed = receiver.mark
        receiver.type("y\r")
        #expect(receiver.waitForOutput(containing: "(not its last 3 digits: compare the codes and type them again)", after: typed))
        #expect(receiver.waitForOutput(containing: "type them again)\r\nDoes \"alice\" show the same code?", after: typed))
        #expect(verifiedNames(bob).isEmpty)
        // Typing the digits the other side shows confirms.
        confirmCode(on: receiver)
        #expect(sender.wait() == 0)
        #expect(receiver.wait() == 0)
        #expect(sender.output.contains("Sent 1 item to \"bob\" (verified now)"))
        #expect(FileTree.allPaths(dir.at("inbox")) == ["note.txt"])
        #expect(verifiedNames(bob) == ["alice"])
        #expect(verifiedNames(alice) == ["bob"])
    }

    @Test func aYTypedBeforeAnOfferDoesNotAcceptIt() throws {
        let dir = TemporaryDirectory("trust-typed-ahead-offer")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("note.txt"), "hello")
        let (receiver, port) = try terminalReceiver(bob, dir)
        receiver.type("y\r")
        usleep(500_000)
        // An unattended sender: no code, a plain y/N question.
        let sender = alice.start(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(receiver.waitForOutput(containing: "Accept? [y/N]"))
        usleep(1_500_000)
        #expect(!receiver.output.contains("Accept? [y/N] y"), "the y typed ahead answered nothing")
        #expect(receiver.isRunning && FileTree.allPaths(dir.at("inbox")).isEmpty)
        receiver.type("n\r")
        #expect(sender.wait(timeout: .seconds(30)).status == 1)
        #expect(FileTree.allPaths(dir.at("inbox")).isEmpty)
        receiver.interrupt()
        _ = receiver.wait()
    }

    @Test func oneQuestionAtATimeWithTheQueueShownAndNothingWrittenIntoIt() throws {
        let dir = TemporaryDirectory("trust-queue")
        let alice = TestMachine("alice", in: dir)
        let carol = TestMachine("carol", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("a.txt"), "from alice")
        FileTree.writeText(dir.at("c.txt"), "from carol")
        let (receiver, port) = try terminalReceiver(bob, dir)
        let first = alice.start(["send", dir.at("a.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(receiver.waitForOutput(containing: "Accept? [y/N]"))
        let second = carol.start(["send", dir.at("c.txt"), "--to", "127.0.0.1:\(port)"])
        let queued = receiver.mark
        #expect(receiver.waitForOutput(containing: "(1 more question waits after this one) [y/N]", after: queued))
        // A message from elsewhere (a connection that is not TLS) lands above the question, which
        // is drawn again whole.
        let garbage = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(garbage, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        _ = "GET / HTTP/1.0\r\n\r\n".withCString { write(garbage, $0, strlen($0)) }
        close(garbage)
        #expect(receiver.waitForOutput(containing: "Refused a connection from 127.0.0.1"))
        let afterMessage = receiver.output.components(separatedBy: "Refused a connection from").last ?? ""
        #expect(afterMessage.contains("waits after this one) [y/N]"), "the question is drawn again below the message")
        receiver.type("y\n")
        #expect(receiver.waitForOutput(containing: "\"carol\" (new: not verified)"))
        receiver.type("y\n")
        #expect(first.wait(timeout: .seconds(30)).status == 0)
        #expect(second.wait(timeout: .seconds(30)).status == 0)
        #expect(FileTree.allPaths(dir.at("inbox")).sorted() == ["a.txt", "c.txt"])
        receiver.interrupt()
        _ = receiver.wait()
    }

    @Test func progressToOtherPeersPausesWhileTheSenderIsAsked() throws {
        let dir = TemporaryDirectory("trust-multi")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        let carol = TestMachine("carol", in: dir)
        FileTree.writeSparseFile(dir.at("big.img"), size: 1 << 30)
        let (asking, askingPort) = try terminalReceiver(bob, dir, ["--once"])
        let (everyone, everyonePort) = try jsonReceiver(carol, dir.at("inbox2"), ["--accept", "everyone", "--once"])
        let sender = alice.interactive(
            ["send", dir.at("big.img"), "--to", "127.0.0.1:\(askingPort)", "--to", "127.0.0.1:\(everyonePort)"])
        #expect(sender.waitForOutput(containing: "Does \"bob\" show the same code? Type its last 3 digits to confirm (Enter alone: no):", timeout: .seconds(60)))
        let asked = sender.mark
        usleep(1_500_000)
        #expect(!sender.output(after: asked).contains("%"), "no progress drawn over the question")
        confirmCode(on: sender)
        #expect(asking.waitForOutput(containing: "(Enter alone: no):"))
        confirmCode(on: asking)
        #expect(sender.wait(timeout: .seconds(120)) == 0)
        #expect(sender.output(after: asked).contains("Sent 1 item to \"bob\" (verified now)"))
        _ = asking.wait(timeout: .seconds(30))
        _ = everyone.wait(timeout: .seconds(30))
    }

    @Test func theSenderIsToldWhichRefusalHappenedAndTheRateExcludesTheWait() throws {
        let dir = TemporaryDirectory("trust-outcomes")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("note.txt"), "hello")

        // No answer in time.
        let (slow, slowPort) = try terminalReceiver(bob, dir, extra: ["SHARE_PROMPT_TIMEOUT": "2"])
        let unanswered = alice.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(slowPort)", "--json"])
        #expect(unanswered.status == 1)
        #expect(jsonObject(unanswered.stdout)?["outcome"] as? String == "noAnswer")
        #expect(unanswered.stderr.contains("its user did not answer within 2s"))
        #expect(slow.waitForOutput(containing: "(no answer within 2 s; declined)"))

        // Declined by the user.
        var mark = slow.mark
        let declining = alice.start(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(slowPort)", "--json"])
        #expect(slow.waitForOutput(containing: "Accept? [y/N]", after: mark, timeout: .seconds(20)))
        slow.type("n\n")
        let declined = declining.wait(timeout: .seconds(30))
        #expect(jsonObject(declined.stdout)?["outcome"] as? String == "declined")
        #expect(declined.stderr.contains("its user declined"))

        // The time spent deciding is reported apart from the transfer's.
        mark = slow.mark
        let accepting = alice.start(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(slowPort)", "--json"])
        #expect(slow.waitForOutput(containing: "Accept? [y/N]", after: mark, timeout: .seconds(20)))
        usleep(1_200_000)
        slow.type("y\n")
        let accepted = accepting.wait(timeout: .seconds(30))
        let report = try #require(jsonObject(accepted.stdout))
        #expect((report["waitedSeconds"] as? Double ?? 0) >= 1.0)
        #expect((report["seconds"] as? Double ?? 99) < 1.0)
        slow.interrupt()
        _ = slow.wait()

        // Nobody to ask.
        let (unattended, port) = try jsonReceiver(bob, dir.at("inbox"), [])
        let nobody = alice.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)", "--json"])
        let nobodyReport = try #require(jsonObject(nobody.stdout))
        #expect(nobodyReport["outcome"] as? String == "nobodyToAsk")
        let unattendedPeer = try #require(nobodyReport["peer"] as? [String: Any])
        #expect(unattendedPeer["name"] as? String == "bob", "the connection got as far as the receiver's HELLO")
        #expect((unattendedPeer["fingerprint"] as? String)?.count == 64)
        unattended.signal(SIGTERM)
        _ = unattended.wait()
    }

    // MARK: What is on screen can be acted on

    @Test func theFingerprintAReceiverShowsIsEnoughToBlockTheSender() throws {
        let dir = TemporaryDirectory("trust-block-shown")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("note.txt"), "hello")
        let (receiver, port) = try terminalReceiver(bob, dir)
        let sender = alice.start(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(receiver.waitForOutput(containing: "Accept? [y/N]"))
        let shown = try #require(receiver.output.components(separatedBy: "fingerprint ").last?.prefix(19))
        receiver.type("n\n")
        _ = sender.wait(timeout: .seconds(30))
        // Typed as shown: 16 digits in groups.
        let blocked = bob.run(["trust", "block", String(shown)])
        #expect(blocked.status == 0, "\(blocked.stderr)")
        #expect(blocked.stdout.contains("it is refused before any prompt"))
        let mark = receiver.mark
        let refused = alice.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("the receiver refuses offers from this sender"))
        #expect(receiver.waitForOutput(containing: "before its offer", after: mark))
        #expect(!receiver.output(after: mark).contains("[y/N]"), "refused before any prompt")
        receiver.interrupt()
        _ = receiver.wait()

        // Too short says so, rather than "no match".
        let short = bob.run(["trust", "block", String(shown.prefix(4))])
        #expect(short.status == 1)
        #expect(short.stderr.contains("is too short: give at least 16 hex digits"))
        let remove = bob.run(["trust", "remove", String(shown.prefix(4))])
        #expect(remove.status == 1)
        #expect(remove.stderr.contains("is too short: give at least 8 hex digits"))
        let unknown = bob.run(["trust", "remove", "0000000000"])
        #expect(unknown.stderr.contains("no verified or blocked peer is called '0000000000' or has a fingerprint starting with it"))
    }

    @Test func noNoteWhenSendingToOneself() throws {
        let dir = TemporaryDirectory("trust-self")
        let alice = TestMachine("alice", in: dir)
        FileTree.writeText(dir.at("note.txt"), "hello")
        let (receiver, port) = try jsonReceiver(alice, dir.at("inbox"), ["--accept", "everyone"])
        let sent = alice.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(sent.status == 0)
        #expect(!sent.stderr.contains("Note:"))
        receiver.signal(SIGTERM)
        _ = receiver.wait()
    }

    // MARK: Policies (unchanged behaviour)

    @Test func trustedAcceptsVerifiedPeersSilentlyAndRefusesOthersBeforeTheirOffer() throws {
        let dir = TemporaryDirectory("trust-trusted")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        let carol = TestMachine("carol", in: dir)
        try pair(alice, bob, dir)
        FileTree.writeText(dir.at("note.txt"), "hello")
        let (receiver, port) = try jsonReceiver(bob, dir.at("inbox"), ["--accept", "trusted"])
        let stranger = carol.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(stranger.status == 1)
        #expect(stranger.stderr.hasPrefix("Error: the receiver declined the offer: the receiver accepts only from peers it has verified"))
        let friend = alice.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)", "--json"])
        #expect(friend.status == 0)
        #expect(jsonObject(friend.stdout)?["verification"] as? String == "verified")
        #expect(FileTree.allPaths(dir.at("inbox")) == ["note.txt"])
        receiver.signal(SIGTERM)
        _ = receiver.wait()
    }

    @Test func aRefusalByPolicySaysWhoVerifiesWhomWhereAndFollowingItWorks() throws {
        let dir = TemporaryDirectory("trust-advice")
        let bob = TestMachine("bob", in: dir)
        let carol = TestMachine("carol", in: dir)
        FileTree.writeText(dir.at("note.txt"), "hello")
        let (receiver, port) = try jsonReceiver(bob, dir.at("trusted-inbox"), ["--accept", "trusted"])
        defer {
            receiver.signal(SIGTERM)
            _ = receiver.wait()
        }
        let refused = carol.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "Error: the receiver declined the offer: the receiver accepts only from peers it has verified; "
                + "to verify this sender (\"carol\"), the person at \"bob\" runs this on that machine while \"carol\" "
                + "runs 'share receive --accept ask' on a terminal: share trust verify 'carol'\n")

        // As advised: bob verifies carol on bob's machine while carol receives on a terminal; bob's
        // receiver keeps running, and now accepts her.
        try pair(bob, carol, dir)
        let accepted = carol.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(FileTree.allPaths(dir.at("trusted-inbox")) == ["note.txt"])
    }

    @Test func aBlockedPeerIsRefusedEvenByEveryone() throws {
        let dir = TemporaryDirectory("trust-block")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        let blocked = bob.run(["trust", "block", try fingerprint(alice)])
        #expect(blocked.status == 0)
        #expect(bob.run(["trust", "list"]).stdout.contains("blocked"))
        FileTree.writeText(dir.at("note.txt"), "hello")
        let (receiver, port) = try jsonReceiver(bob, dir.at("inbox"), ["--accept", "everyone"])
        let sent = alice.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(sent.status == 1)
        #expect(sent.stderr == "Error: the receiver declined the offer: the receiver refuses offers from this sender\n")
        #expect(FileTree.allPaths(dir.at("inbox")).isEmpty)
        receiver.signal(SIGTERM)
        _ = receiver.wait()
    }

    @Test func everyoneModeEndsOnItsOwn() throws {
        let dir = TemporaryDirectory("trust-everyone")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("note.txt"), "hello")
        let (receiver, port) = try jsonReceiver(bob, dir.at("inbox"), ["--accept", "everyone", "--everyone-for", "2s"])
        #expect(alice.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"]).status == 0)
        #expect(receiver.waitForOutput(containing: "\"event\":\"policy\",\"accept\":\"ask\"", timeout: .seconds(10)))
        let later = alice.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(later.status == 1)
        #expect(later.stderr.contains("it has no terminal to ask its user on"))
        #expect(FileTree.allPaths(dir.at("inbox")) == ["note.txt"])
        receiver.signal(SIGTERM)
        _ = receiver.wait()
    }

    @Test func promptsFromOnePeerAreLimited() throws {
        let dir = TemporaryDirectory("trust-flood")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("note.txt"), "hello")
        let (receiver, port) = try jsonReceiver(bob, dir.at("inbox"), [])
        var errors: [String] = []
        for _ in 0..<4 { errors.append(alice.run(["send", dir.at("note.txt"), "--to", "127.0.0.1:\(port)"]).stderr) }
        #expect(errors.prefix(3).allSatisfy { $0.contains("no terminal to ask its user on") })
        // The message says which limit was reached and when it lifts (about a minute after the first).
        let busy = "Error: the receiver is busy: too many offers from this sender: at most 3 a minute from a sender "
            + "not verified here; try again in "
        #expect(errors[3].hasPrefix(busy) && errors[3].hasSuffix(" s\n"), "\(errors[3])")
        receiver.signal(SIGTERM)
        _ = receiver.wait()
    }
}
