import Foundation
import ShareTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `share receive --accept ask` without a terminal asks with a desktop notification:
/// on a real session bus (dbus-daemon) with a real notification server from Debian (dunst on
/// Xvfb), whose context menu clicks the buttons as a user would.
@Suite(.serialized, .enabled(if: DesktopSession.missingForServer.isEmpty || SimulatedLAN.isRequired))
struct NotificationPromptTests {
    /// alice, and bob receiving under `ask` with no terminal in a desktop session (with dunst when
    /// `server`); `a.txt` holds "hello\n". `xdg-open` only records what it was asked to open, in
    /// `dir/opened`.
    final class Scene {
        let dir: TemporaryDirectory
        let alice: TestMachine
        let bob: TestMachine
        let desktop: DesktopSession
        let receiver: RunningShare
        let port: UInt16

        init(_ name: String, server: Bool = true, extra: [String: String] = [:]) throws {
            dir = TemporaryDirectory(name)
            alice = TestMachine("alice", in: dir)
            bob = TestMachine("bob", in: dir)
            FileTree.writeText(dir.at("a.txt"), "hello\n")
            FileTree.makeFolder(dir.at("bin"))
            FileTree.writeText(dir.at("bin/xdg-open"), "#!/bin/sh\nprintf '%s\\n' \"$@\" >> '\(dir.at("opened"))'\n")
            chmod(dir.at("bin/xdg-open"), 0o755)
            desktop = try DesktopSession(notificationServer: server)
            var environment = bob.environment.merging(desktop.environment) { $1 }.merging(extra) { $1 }
            environment["PATH"] = dir.at("bin") + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
            receiver = ShareBinary.start(
                ["receive", "--port", "0", "--dir", dir.at("in"), "--accept", "ask"], environment: environment)
            #expect(receiver.waitForOutput(containing: "Press Ctrl-C to stop."))
            let port = receiver.stdout.split(separator: " ").drop { $0 != "port" }.dropFirst().first.flatMap {
                UInt16($0)
            }
            self.port = try #require(port, "\(receiver.stdout)\(receiver.stderr)")
        }

        /// `share send ARGS --to` bob's receiver.
        func send(_ arguments: [String]) -> [String] { ["send"] + arguments + ["--to", "127.0.0.1:\(port)"] }

        deinit {
            receiver.signal(SIGTERM)
            _ = receiver.wait()
            desktop.stop()
        }
    }

    /// The verification code after the last `marker` in `text`.
    func code(after marker: String, in text: String) -> String? {
        guard let range = text.range(of: marker, options: .backwards) else { return nil }
        let digits = text[range.upperBound...].drop { $0 == " " }.prefix(15)
        return digits.count == 15 && digits.filter(\.isNumber).count == 12 ? String(digits) : nil
    }

    /// Types on `terminal` the last 3 digits of the code it shows, as the person who compared the
    /// codes does to confirm them.
    func confirmCode(on terminal: PseudoTerminalProcess) {
        let shown = code(after: "Verification code:", in: terminal.output) ?? ""
        // A person answers a while after the question appeared; keys typed before it are discarded.
        usleep(200_000)
        terminal.type(String(shown.suffix(3)) + "\n")
    }

    @Test func anOfferIsAskedWithANotificationThatShowsTheCodeAndAcceptingReceivesIt() async throws {
        let scene = try Scene("notify-ask")
        let (dir, alice, desktop, receiver, port) = (scene.dir, scene.alice, scene.desktop, scene.receiver, scene.port)

        // The sender's user is on a terminal: both show the same code on first contact.
        let sender = alice.interactive(["send", dir.at("a.txt"), "--to", "127.0.0.1:\(port)"])
        #expect(sender.waitForOutput(containing: "Does \"bob\" show the same code? Type its last 3 digits to confirm (Enter alone: no):"))
        #expect(await waitUntil { desktop.displayed() == 1 })
        #expect(receiver.stderr.contains("Asking about the offer from \"alice\" at 127.0.0.1:"))
        #expect(receiver.stderr.contains(" with a desktop notification."))
        confirmCode(on: sender)
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
        let scene = try Scene("notify-decline", extra: ["SHARE_PROMPT_TIMEOUT": "2"])
        let (dir, alice, desktop, port) = (scene.dir, scene.alice, scene.desktop, scene.port)
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
        let scene = try Scene("notify-queue")
        let (dir, desktop, receiver) = (scene.dir, scene.desktop, scene.receiver)
        let carol = TestMachine("carol", in: dir)
        FileTree.writeText(dir.at("c.txt"), "from carol\n")

        let first = scene.alice.start(scene.send([dir.at("a.txt")]))
        #expect(await waitUntil { desktop.displayed() == 1 })
        let second = carol.start(scene.send([dir.at("c.txt")]))
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
        let scene = try Scene("notify-text")
        let (dir, alice, desktop, port) = (scene.dir, scene.alice, scene.desktop, scene.port)

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
        let scene = try Scene("notify-pair")
        let (alice, desktop, port) = (scene.alice, scene.desktop, scene.port)
        let verifier = alice.interactive(["trust", "verify", "127.0.0.1:\(port)"])
        #expect(verifier.waitForOutput(containing: "show the same code? Type its last 3 digits to confirm (Enter alone: no):"))
        #expect(await waitUntil { desktop.displayed() == 1 })
        confirmCode(on: verifier)
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
        let scene = try Scene("notify-none", server: false)
        let (dir, alice, receiver, port) = (scene.dir, scene.alice, scene.receiver, scene.port)
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
