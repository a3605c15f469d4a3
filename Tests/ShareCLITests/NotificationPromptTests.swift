import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `share receive --accept ask` without a terminal asks with a desktop notification (issue 14):
/// on a real session bus (dbus-daemon) with a real notification server from Debian (dunst on
/// Xvfb), whose context menu clicks the buttons as a user would.
@Suite(.serialized, .enabled(if: DesktopSession.missingForServer.isEmpty || SimulatedLAN.isRequired))
struct NotificationPromptTests {
    /// A receiver with no terminal in `desktop`'s session, and its port. `xdg-open` only records
    /// what it was asked to open, in `dir/opened`.
    func receiver(
        _ machine: TestMachine, _ dir: TemporaryDirectory, desktop: DesktopSession, extra: [String: String] = [:]
    ) throws -> (RunningShare, UInt16) {
        FileTree.makeFolder(dir.at("bin"))
        FileTree.writeText(dir.at("bin/xdg-open"), "#!/bin/sh\nprintf '%s\\n' \"$@\" >> '\(dir.at("opened"))'\n")
        chmod(dir.at("bin/xdg-open"), 0o755)
        var environment = machine.environment.merging(desktop.environment) { $1 }.merging(extra) { $1 }
        environment["PATH"] = dir.at("bin") + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let receiver = ShareBinary.start(
            ["receive", "--port", "0", "--dir", dir.at("in"), "--accept", "ask"], environment: environment)
        #expect(receiver.waitForOutput(containing: "Press Ctrl-C to stop."))
        let port = receiver.stdout.split(separator: " ").drop { $0 != "port" }.dropFirst().first.flatMap { UInt16($0) }
        return (receiver, try #require(port, "\(receiver.stdout)\(receiver.stderr)"))
    }

    /// Runs `share ARGS` as `machine` on a pseudo-terminal.
    func interactive(_ machine: TestMachine, _ arguments: [String]) -> PseudoTerminalProcess {
        let command = ([ShareBinary.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        return PseudoTerminalProcess(command: command, environment: machine.environment)
    }

    /// The verification code after the last `marker` in `text`.
    func code(after marker: String, in text: String) -> String? {
        guard let range = text.range(of: marker, options: .backwards) else { return nil }
        let digits = text[range.upperBound...].drop { $0 == " " }.prefix(15)
        return digits.count == 15 && digits.filter(\.isNumber).count == 12 ? String(digits) : nil
    }

    @Test func anOfferIsAskedWithANotificationThatShowsTheCodeAndAcceptingReceivesIt() async throws {
        let dir = TemporaryDirectory("notify-ask")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("a.txt"), "hello\n")
        let desktop = try DesktopSession(notificationServer: true)
        defer { desktop.stop() }
        let (receiver, port) = try receiver(bob, dir, desktop: desktop)
        defer { receiver.signal(SIGTERM) }

        // The sender's user is on a terminal: both show the same code on first contact.
        let sender = interactive(alice, ["send", dir.at("a.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(sender.waitForOutput(containing: "Does \"bob\" show the same code? [y/N]"))
        #expect(await waitUntil { desktop.displayed() == 1 })
        #expect(receiver.stderr.contains("Asking about the offer from \"alice\" at 127.0.0.1:"))
        #expect(receiver.stderr.contains(" with a desktop notification."))
        sender.type("y\n")
        #expect(!FileManager.default.fileExists(atPath: dir.at("in/a.txt")), "nothing before the user accepts")
        desktop.invoke("accept")
        #expect(sender.wait() == 0)
        #expect(sender.output.contains("Sent 1 item to \"bob\" (verified now)"))
        #expect(FileTree.readText(dir.at("in/a.txt")) == "hello\n")

        let asked = try #require(desktop.history().first)
        #expect(asked.summary.hasPrefix("\"alice\" (new: not verified) at 127.0.0.1:"))
        #expect(asked.summary.hasSuffix(" offers 1 item, 6 bytes"))
        let fingerprint = try #require(
            await alice.run(["identity"]).stdout.split(separator: "\n").first { $0.contains("Fingerprint") })
        let prefix = OfferPrefix.of(String(fingerprint))
        #expect(asked.body.contains("fingerprint \(prefix)"), "\(asked.body)")
        #expect(asked.body.contains("a.txt"))
        let shownCode = code(after: "Verification code:", in: asked.body)
        #expect(shownCode != nil && shownCode == code(after: "Verification code:", in: sender.output))
        #expect(asked.body.hasSuffix("Do the codes match? Accept, and remember \"alice\" as verified?"))
        #expect(asked.urgency == "CRITICAL")
        #expect(asked.category == "transfer")

        // What was received is notified, with a button that opens its folder.
        #expect(await waitUntil { desktop.displayed() == 1 })
        desktop.invoke("open")
        #expect(await waitUntil { FileTree.readText(dir.at("opened")) == dir.at("in") + "\n" })
        #expect(desktop.history().first?.summary == "Received a.txt from \"alice\"")
    }

    @Test func declinedWhenDeclinedOrClosedAndNoAnswerWhenItExpires() async throws {
        let dir = TemporaryDirectory("notify-decline")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("a.txt"), "hello\n")
        let desktop = try DesktopSession(notificationServer: true)
        defer { desktop.stop() }
        let (receiver, port) = try receiver(bob, dir, desktop: desktop, extra: ["SHARE_PROMPT_TIMEOUT": "2"])
        defer { receiver.signal(SIGTERM) }
        let send = ["send", dir.at("a.txt"), "--to", "127.0.0.1:\(port)"]

        for answer in ["decline", "dismiss"] {
            let sender = alice.start(send)
            #expect(await waitUntil { desktop.displayed() == 1 })
            if answer == "decline" { desktop.invoke("decline") } else { desktop.dismiss() }
            let result = await sender.wait()
            #expect(result.status == 1)
            #expect(result.stderr == "Error: the receiver declined the offer: its user declined\n", "\(answer)")
            #expect(await waitUntil { desktop.displayed() == 0 }, "nothing is notified about a declined offer")
        }
        let started = ContinuousClock.now
        let unanswered = await alice.run(send)
        #expect(unanswered.status == 1)
        #expect(unanswered.stderr.contains("its user did not answer within 2s"), "\(unanswered.stderr)")
        #expect(ContinuousClock.now - started < .seconds(15))
        #expect(desktop.displayed() == 0, "the question is gone when it expired")
        #expect(!FileManager.default.fileExists(atPath: dir.at("in/a.txt")))
    }

    @Test func oneQuestionAtATimeAndTheFirstSaysHowManyWait() async throws {
        let dir = TemporaryDirectory("notify-queue")
        let alice = TestMachine("alice", in: dir)
        let carol = TestMachine("carol", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("a.txt"), "from alice\n")
        FileTree.writeText(dir.at("c.txt"), "from carol\n")
        let desktop = try DesktopSession(notificationServer: true)
        defer { desktop.stop() }
        let (receiver, port) = try receiver(bob, dir, desktop: desktop)
        defer { receiver.signal(SIGTERM) }

        let first = alice.start(["send", dir.at("a.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(await waitUntil { desktop.displayed() == 1 })
        let second = carol.start(["send", dir.at("c.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(await waitUntil { receiver.stderr.components(separatedBy: "Asking about the offer").count == 3 })
        try await Task.sleep(for: .milliseconds(500))
        #expect(desktop.displayed() == 1, "the second question waits for the first")
        desktop.invoke("accept")
        #expect(await first.wait().status == 0)
        let answered = try #require(desktop.history().first { $0.summary.hasPrefix("\"alice\"") })
        #expect(answered.body.hasSuffix("Accept?\n(1 more question waits after this one)"), "\(answered.body)")

        // Then carol's question (beside the notice of alice's transfer).
        #expect(await waitUntil { desktop.displayed() == 2 })
        desktop.invoke("decline")
        let declined = await second.wait()
        #expect(declined.status == 1)
        #expect(declined.stderr == "Error: the receiver declined the offer: its user declined\n")
        let carols = try #require(desktop.history().first { $0.summary.hasPrefix("\"carol\"") })
        #expect(carols.body.hasSuffix("Accept?"), "none waits behind it: \(carols.body)")
    }

    @Test func aTextIsShownWithItsLinkNeverOpenedAndSavedAsATextDocument() async throws {
        let dir = TemporaryDirectory("notify-text")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        let desktop = try DesktopSession(notificationServer: true)
        defer { desktop.stop() }
        let (receiver, port) = try receiver(bob, dir, desktop: desktop)
        defer { receiver.signal(SIGTERM) }

        let text = "The slides: https://example.com/talk?id=7.\n<b>not bold</b>"
        let sender = alice.start(["send", "--text", text, "--to", "127.0.0.1:\(port)"])
        #expect(await waitUntil { desktop.displayed() == 1 })
        desktop.invoke("accept")
        #expect(await sender.wait().status == 0)
        #expect(FileTree.readText(dir.at("in/Text.txt")) == text)
        let asked = try #require(desktop.history().first { $0.summary.hasPrefix("\"alice\"") })
        #expect(
            asked.body.contains(
                "    │ The slides: <a href=\"https://example.com/talk?id=7\">https://example.com/talk?id=7</a>.\n"
                    + "    │ &lt;b&gt;not bold&lt;/b&gt;\n"),
            "\(asked.body)")
        try await Task.sleep(for: .milliseconds(300))
        #expect(!FileManager.default.fileExists(atPath: dir.at("opened")), "share opens no link")
    }

    @Test func aPairingRequestComparesTheCodeInANotification() async throws {
        let dir = TemporaryDirectory("notify-pair")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        let desktop = try DesktopSession(notificationServer: true)
        defer { desktop.stop() }
        let (receiver, port) = try receiver(bob, dir, desktop: desktop)
        defer { receiver.signal(SIGTERM) }
        let verifier = interactive(alice, ["trust", "verify", "127.0.0.1:\(port)"])
        #expect(verifier.waitForOutput(containing: "show the same code? [y/N]"))
        #expect(await waitUntil { desktop.displayed() == 1 })
        verifier.type("y\n")
        desktop.invoke("accept")
        #expect(verifier.wait() == 0)
        #expect(verifier.output.contains("both sides confirmed the code and remember each other"))
        let asked = try #require(desktop.history().first)
        #expect(asked.summary.hasSuffix(" asks to verify this machine."))
        let shown = code(after: "  code ", in: asked.body)
        #expect(shown != nil && shown == code(after: "Verification code:", in: verifier.output), "\(asked.body)")
        #expect(asked.body.hasSuffix("Does \"alice\" show the same code?"))
    }

    @Test func withABusButNoServerOffersAreDeclinedWithTheReason() async throws {
        let dir = TemporaryDirectory("notify-none")
        let alice = TestMachine("alice", in: dir)
        let bob = TestMachine("bob", in: dir)
        FileTree.writeText(dir.at("a.txt"), "hello\n")
        let desktop = try DesktopSession(notificationServer: false)
        defer { desktop.stop() }
        let (receiver, port) = try receiver(bob, dir, desktop: desktop)
        defer { receiver.signal(SIGTERM) }
        let sent = await alice.run(["send", dir.at("a.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(sent.status == 1)
        #expect(
            sent.stderr
                == "Error: the receiver declined the offer: it has no terminal to ask its user on and no desktop "
                + "notifications; it accepts without asking only with --accept everyone or trusted\n")
        #expect(await receiver.waitForOutput(containing: ": no terminal to ask on, and no desktop notifications ("))
        #expect(receiver.stderr.contains("org.freedesktop.Notifications"), "\(receiver.stderr)")
    }
}

/// The fingerprint prefix an offer shows: the first 16 hex digits, in groups of 4.
private enum OfferPrefix {
    static func of(_ line: String) -> String {
        let hex = line.drop { $0 != ":" }.filter(\.isHexDigit).uppercased()
        return stride(from: 0, to: 16, by: 4).map { start in
            String(hex.dropFirst(start).prefix(4))
        }.joined(separator: " ")
    }
}
