import ShareKit
import ShareNotifications
import ShareSystemd
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What `share receive --service` adds to `share receive` (the systemd user unit
/// `share-receive.service` runs it): readiness and a status line for systemd (sd_notify), a
/// console for the journal (``JournalConsole``), a reload of the settings on SIGHUP, and a clean
/// stop (exit 0) on SIGTERM, and desktop notifications of what it received or why it failed
/// (``TransferNotice``), when the session has a notification server.
///
/// A reload stops accepting new connections, lets the transfers in progress end, reads the
/// settings again and listens anew with them (name, folder, port, policy); when the settings
/// cannot be read it says why and keeps the ones it had.
final class ReceiveService: Sendable {
    /// The notifier of the service manager (does nothing when not run by one).
    let manager = ServiceManager()
    /// The context the service runs with: the same paths, the journal console.
    let context: CommandContext
    private let reloadRequested = Mutex(false)
    private let counts = Mutex((received: 0, declined: 0, failed: 0))
    private let listeningAs = Mutex((name: "", port: UInt16(0), policy: ""))
    /// The desktop's notification server (for these notices and for the questions asked without a
    /// terminal), connected again when it was not there.
    let notifications: NotifierConnection

    init(context: CommandContext) {
        var context = context
        context.console = JournalConsole.make(environment: context.console.environment)
        self.context = context
        notifications = NotifierConnection(environment: context.console.environment)
        if let notifier = notifications.current() {
            context.console.line("Desktop notifications are shown by \(TerminalText.safe(notifier.server.name)).")
        } else {
            context.console.line("No desktop notifications for now: \(notifications.problem.map { "\($0)" } ?? "none").")
        }
    }

    /// The signals a service handles beyond SIGINT and SIGTERM.
    let signals = [SIGHUP]

    /// Handles `signal` for `receiver`; true when it was the service's to handle (SIGHUP).
    func handle(_ signal: Int32, receiver: Receiver) -> Bool {
        if signal == SIGHUP {
            reloadRequested.withLock { $0 = true }
            manager.reloading(status: "Reloading the settings")
            context.console.line("Reloading the settings: waiting for transfers in progress, then listening anew.")
            receiver.stopAccepting()
            return true
        }
        manager.stopping(status: "Stopping")
        return false
    }

    /// The receiver listens: tells systemd it is ready.
    func listening(name: String, port: UInt16, policy: String) {
        listeningAs.withLock { $0 = (name, port, policy) }
        manager.ready(status: summary())
    }

    /// A connection ended: the counts in the status line follow.
    func finished(_ outcome: IncomingOutcome) {
        counts.withLock { counts in
            switch outcome {
            case .received: counts.received += 1
            case .declined: counts.declined += 1
            case .failed: counts.failed += 1
            case .refusedSender: counts.declined += 1
            case .refused, .paired: break
            }
        }
        manager.status(summary())
        TransferNotice.show(outcome, home: context.paths.home, on: notifications, console: context.console)
    }

    /// Whether the receiver stopped for a reload (and clears the request).
    func takeReloadRequest() -> Bool {
        reloadRequested.withLock { requested in
            defer { requested = false }
            return requested
        }
    }

    /// The node with its settings read again; the old ones, with an error in the log, when they
    /// cannot be read.
    func reloaded(_ node: LocalNode) -> LocalNode {
        do {
            return try node.reloadingSettings()
        } catch {
            context.console.error("\(error); keeping the settings in use")
            return node
        }
    }

    private func summary() -> String {
        let (received, declined, failed) = counts.withLock { ($0.received, $0.declined, $0.failed) }
        let (name, port, policy) = listeningAs.withLock { $0 }
        return "Receiving as \"\(TerminalText.safe(name))\" on port \(port) (\(policy)); "
            + "\(received) received, \(declined) declined, \(failed) failed"
    }
}
