import Foundation
import ShareNotifications
import ShareTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The notifications client against a real session bus (dbus-daemon) and a real notification
/// server from Debian (dunst on Xvfb), whose context menu clicks the buttons.
@Suite(.serialized, .enabled(if: DesktopSession.missingForServer.isEmpty || SimulatedLAN.isRequired))
struct DesktopNotifierTests {
    static let question = DesktopNotification(
        summary: "\"alice\" wants to send 2 items", body: "Report.pdf, Photos/ — 1.2 MB",
        actions: [.init(key: "accept", label: "Accept"), .init(key: "decline", label: "Decline")], urgency: .critical)

    /// Asks on a thread of its own, as a receiver's connection thread would.
    final class Asking: Sendable {
        let answer = Mutex<Result<NotificationAnswer, NotificationError>?>(nil)

        init(
            _ notifier: DesktopNotifier, timeout: Duration = .seconds(20), notification: DesktopNotification = question,
            cancellation: NotificationCancellation? = nil
        ) {
            let thread = Thread { [self] in
                let result = Result { () throws(NotificationError) in
                    try notifier.ask(
                        notification, accept: "accept", decline: "decline", timeout: timeout, cancellation: cancellation
                    )
                }
                answer.withLock { $0 = result }
            }
            thread.start()
        }

        func wait(timeout: Duration = .seconds(20)) -> NotificationAnswer? {
            _ = DesktopSession.waitFor(timeout: timeout) { answer.withLock { $0 } != nil }
            return try? answer.withLock { $0 }?.get()
        }
    }

    @Test func availabilityTellsWhetherThereIsABusAndAServer() throws {
        #expect(
            DesktopNotifier.availability(environment: [:]) == .noSessionBus(NotificationError.noSessionBus.description))
        let dead = DesktopNotifier.availability(environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"])
        guard case .noSessionBus(let reason) = dead else {
            Issue.record("\(dead)")
            return
        }
        #expect(reason.hasPrefix("cannot connect to the D-Bus session bus at unix:path=/nonexistent/bus"))

        let bare = try DesktopSession(notificationServer: false)
        defer { bare.stop() }
        let started = ContinuousClock.now
        let none = DesktopNotifier.availability(environment: bare.environment)
        #expect(ContinuousClock.now - started < .seconds(2), "quick enough to decide before a prompt")
        guard case .noServer(let why) = none else {
            Issue.record("\(none)")
            return
        }
        #expect(why.contains("org.freedesktop.Notifications"))

        let desktop = try DesktopSession(notificationServer: true)
        defer { desktop.stop() }
        guard case .available(let server) = DesktopNotifier.availability(environment: desktop.environment) else {
            Issue.record("dunst is not seen")
            return
        }
        #expect(server.name == "dunst")
        #expect(server.supportsActions)
        #expect(server.readsMarkup, "dunst shows links in bodies")
    }

    @Test func aNotificationIsShownWithItsSummaryBodyAndUrgencyAndCanBeClosed() throws {
        let desktop = try DesktopSession(notificationServer: true)
        defer { desktop.stop() }
        let notifier = try DesktopNotifier(environment: desktop.environment)
        let closed = Mutex<NotificationCloseReason?>(nil)
        var notification = DesktopNotification(
            summary: "Received 1 item from \"bob\"", body: "<b>not bold</b> & <img src=\"http://example.invalid/x\">",
            urgency: .low, expiry: .never)
        notification.category = "transfer.complete"
        let id = try notifier.notify(notification, onClose: { reason in closed.withLock { $0 = reason } })
        #expect(DesktopSession.waitFor { desktop.displayed() == 1 })
        try notifier.close(id)
        #expect(DesktopSession.waitFor { closed.withLock { $0 } == .closedByCall })
        #expect(desktop.displayed() == 0)
        let shown = try #require(desktop.history().first)
        #expect(shown.id == Int(id))
        #expect(shown.summary == "Received 1 item from \"bob\"")
        #expect(
            shown.body == "&lt;b&gt;not bold&lt;/b&gt; &amp; &lt;img src=\"http://example.invalid/x\"&gt;",
            "a peer's text is never markup")
        #expect(shown.urgency == "LOW")
        #expect(shown.category == "transfer.complete")
        #expect(shown.application == "share")
        try notifier.close(id)  // already gone: not an error
    }

    @Test(arguments: [("accept", NotificationAnswer.accepted), ("decline", .declined)])
    func askReturnsTheButtonTheUserClicked(_ key: String, _ expected: NotificationAnswer) throws {
        let desktop = try DesktopSession(notificationServer: true)
        defer { desktop.stop() }
        let notifier = try DesktopNotifier(environment: desktop.environment)
        let asking = Asking(notifier)
        #expect(DesktopSession.waitFor { desktop.displayed() == 1 })
        desktop.invoke(key)
        #expect(asking.wait() == expected)
        #expect(DesktopSession.waitFor { desktop.displayed() == 0 }, "nothing is left to click")
        #expect(desktop.history().first?.urgency == "CRITICAL")
    }

    @Test func dismissingIsClosedAndTheTimeLimitIsExpired() throws {
        let desktop = try DesktopSession(notificationServer: true)
        defer { desktop.stop() }
        let notifier = try DesktopNotifier(environment: desktop.environment)
        let dismissed = Asking(notifier)
        #expect(DesktopSession.waitFor { desktop.displayed() == 1 })
        desktop.dismiss()
        #expect(dismissed.wait() == .closed)

        // The server keeps it (expiry never): the time limit ends it, and closes it.
        var lasting = Self.question
        lasting.expiry = .never
        let started = ContinuousClock.now
        let unanswered = Asking(notifier, timeout: .seconds(1), notification: lasting)
        #expect(unanswered.wait() == .expired)
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(DesktopSession.waitFor { desktop.displayed() == 0 })

        // The server lets it expire first.
        var short = Self.question
        short.expiry = .after(.milliseconds(500))
        let expiring = Asking(notifier, timeout: .seconds(30), notification: short)
        #expect(expiring.wait(timeout: .seconds(10)) == .expired)
    }

    @Test func aQuestionCanBeCancelledFromAnotherThreadOrTask() async throws {
        let desktop = try DesktopSession(notificationServer: true)
        defer { desktop.stop() }
        let notifier = try DesktopNotifier(environment: desktop.environment)
        let cancellation = NotificationCancellation()
        let asking = Asking(notifier, cancellation: cancellation)
        #expect(DesktopSession.waitFor { desktop.displayed() == 1 })
        cancellation.cancel()
        #expect(asking.wait() == .cancelled)
        #expect(DesktopSession.waitFor { desktop.displayed() == 0 })

        let task = Task {
            try await notifier.ask(Self.question, accept: "accept", decline: "decline", timeout: .seconds(20))
        }
        #expect(DesktopSession.waitFor { desktop.displayed() == 1 })
        task.cancel()
        #expect(try await task.value == .cancelled)
    }

    @Test func signalsFromAnyoneButTheServerAreIgnored() throws {
        let desktop = try DesktopSession(notificationServer: true)
        defer { desktop.stop() }
        let notifier = try DesktopNotifier(environment: desktop.environment)
        let asking = Asking(notifier)
        #expect(DesktopSession.waitFor { desktop.displayed() == 1 })
        // Another program on the session bus claims the user clicked Accept: broadcast (which the
        // bus filters out) and sent straight to every connection (which only the notifier can
        // refuse), for every id the question may have.
        let names = try Subprocess(
            executable: "/usr/bin/dbus-send",
            arguments: [
                "--bus=\(desktop.busAddress)", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                "org.freedesktop.DBus.ListNames",
            ],
            environment: desktop.environment, stdinPipe: false)
        let unique = String(decoding: names.readToEnd(), as: UTF8.self).split(separator: "\"").filter {
            $0.hasPrefix(":")
        }
        #expect(unique.count >= 2)
        for destination in [nil] + unique.map(String.init) {
            for id in 1...10 {
                let forged = try Subprocess(
                    executable: "/usr/bin/dbus-send",
                    arguments: ["--bus=\(desktop.busAddress)", "--type=signal"]
                        + (destination.map { ["--dest=\($0)"] } ?? []) + [
                            "/org/freedesktop/Notifications", "org.freedesktop.Notifications.ActionInvoked",
                            "uint32:\(id)",
                            "string:accept",
                        ],
                    environment: desktop.environment, stdinPipe: false)
                #expect(forged.reap(block: true) == 0)
            }
        }
        usleep(300_000)
        #expect(asking.answer.withLock { $0 } == nil, "not accepted by a forged signal")
        desktop.invoke("decline")
        #expect(asking.wait() == .declined)
    }

    @Test func aPlainNotificationReportsItsButtons() throws {
        let desktop = try DesktopSession(notificationServer: true)
        defer { desktop.stop() }
        let notifier = try DesktopNotifier(environment: desktop.environment)
        let clicked = Mutex<[String]>([])
        let id = try notifier.notify(
            DesktopNotification(
                summary: "Received Report.pdf", actions: [.init(key: "open", label: "Open")], expiry: .never),
            onAction: { key in clicked.withLock { $0.append(key) } })
        #expect(DesktopSession.waitFor { desktop.displayed() == 1 })
        desktop.invoke("open", of: id)
        #expect(DesktopSession.waitFor { clicked.withLock { $0 } == ["open"] })
    }

}
