import Foundation
import ShareKit
import ShareNotifications
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Asks the user yes/no questions with desktop notifications (the freedesktop Notifications
/// specification), for a receiver that has no terminal to ask on: what ``Prompter`` does on a
/// terminal, with the same rules.
///
/// One question at a time: the others wait in order, and the notification on screen says how
/// many wait behind it (it is updated when that changes). Each question is a critical notification
/// with two buttons; the first line of what the terminal would show is its summary, the rest and
/// the question its body, with the web addresses of a note shown as links where the server shows
/// links (only a click through the server opens them). A button answers it; dismissing it
/// declines; when ``timeout`` passes (or the server lets it expire) it counts as no answer and is
/// closed; and it is closed at once when its ``PromptTicket`` is withdrawn (the sender gave up,
/// Ctrl-C or SIGTERM stopped the receiver).
final class NotificationPrompter: Sendable {
    /// How long an unanswered question waits before it counts as "no answer".
    let timeout: Duration
    /// The connection to the notification server, which the receiver's other notifications use too.
    let connection: NotifierConnection
    private let screen: Screen
    private let questions: QuestionQueue

    /// The question on screen, to show a new count of the questions waiting behind it.
    private final class Screen: Sendable {
        let current = Mutex<Shown?>(nil)
        /// Updates of the count are sent one at a time, so the last one shown is the latest.
        let updating = Mutex(())

        /// Shows on the question on screen how many wait behind it.
        func update(waiting queue: QuestionQueue) {
            updating.withLock { _ in
                guard let shown = current.withLock({ $0 }) else { return }
                let notification = NotificationPrompter.notification(shown.content, waiting: queue.waiting)
                _ = try? shown.notifier.update(shown.id, to: notification)
            }
        }
    }

    /// A question on screen.
    private struct Shown: Sendable {
        var id: UInt32
        var notifier: DesktopNotifier
        var content: Content
    }

    /// What a question shows.
    private struct Content: Sendable {
        var lines: [String]
        var question: String
        var accept: String
        var decline: String
        var category: String?
    }

    /// The keys of the two buttons.
    static let acceptKey = "accept"
    static let declineKey = "decline"

    init(connection: NotifierConnection, timeout: Duration) {
        self.connection = connection
        self.timeout = timeout
        let screen = Screen()
        self.screen = screen
        questions = QuestionQueue { queue in screen.update(waiting: queue) }
    }

    /// Whether a question can be asked now: a notification server that shows buttons answers on
    /// the session bus (connecting first, when needed).
    var canAsk: Bool { connection.current()?.server.supportsActions == true }

    /// Why no question can be asked, when ``canAsk`` is false: nil when there is no session bus at
    /// all (a machine without a desktop session), else what is missing.
    var problem: String? {
        if let notifier = connection.current() {
            return notifier.server.supportsActions
                ? nil : "the notification server \(TerminalText.safe(notifier.server.name)) cannot show buttons"
        }
        switch connection.problem {
        case .none, .noSessionBus: return nil
        case .some(let error): return error.description
        }
    }

    /// Shows `lines` (the first as the summary) and `question` with the buttons `accept` and
    /// `decline`, and waits for the answer.
    /// - Throws: ``NotificationError`` when the notification cannot be shown (no server, or no
    ///   buttons).
    func ask(
        _ lines: [String], question: String, accept: String = "Accept", decline: String = "Decline",
        category: String? = "transfer", ticket: PromptTicket? = nil
    ) throws(NotificationError) -> Prompter.Answer {
        let content = Content(lines: lines, question: question, accept: accept, decline: decline, category: category)
        let result: Result<Prompter.Answer, NotificationError> = questions.inTurn(
            ticket: ticket, withdrawn: { .success(.withdrawn($0)) }
        ) {
            Result { () throws(NotificationError) in try askNow(content, ticket: ticket) }
        }
        return try result.get()
    }

    /// Asks as ``ask(_:question:accept:decline:category:ticket:)`` does, for a receiver: the log
    /// says that `subject` (`the offer from "alice" at ...`) is asked about, and why not when the
    /// notification cannot be shown (it is then declined: nobody to ask).
    func decide(
        _ lines: [String], question: String, accept: String = "Accept", decline: String = "Decline",
        category: String? = "transfer", ticket: PromptTicket, about subject: String, state: ReceiveReporter
    ) -> OfferAnswer {
        state.notice("Asking about \(subject) with a desktop notification.")
        do {
            let answer = try ask(
                lines, question: question, accept: accept, decline: decline, category: category, ticket: ticket)
            return ReceiveCommand.decision(answer, timeout: timeout)
        } catch {
            state.notice("Declined \(subject): its desktop notification could not be shown (\(error)).")
            return OfferAnswer(.nobodyToAsk, message: "its desktop notification could not be shown")
        }
    }

    private func askNow(_ content: Content, ticket: PromptTicket?) throws(NotificationError) -> Prompter.Answer {
        guard let notifier = connection.current() else {
            throw connection.problem ?? .noServer(reason: "it is not there any more")
        }
        let cancellation = NotificationCancellation()
        let finished = Wakeup()
        defer { finished.signal() }
        if let ticket { Self.watch(ticket, until: finished, cancelling: cancellation) }
        let answer: NotificationAnswer
        do {
            answer = try notifier.ask(
                Self.notification(content, waiting: questions.waiting), accept: Self.acceptKey,
                decline: Self.declineKey, timeout: timeout, cancellation: cancellation,
                shown: { [screen] id in
                    screen.current.withLock { $0 = Shown(id: id, notifier: notifier, content: content) }
                })
        } catch {
            screen.current.withLock { $0 = nil }
            connection.failed(notifier, error)
            throw error
        }
        screen.current.withLock { $0 = nil }
        switch answer {
        case .accepted: return .yes
        case .declined, .closed: return .no
        case .expired: return .timedOut
        case .cancelled: return .withdrawn(ticket?.withdrawal ?? "the question was withdrawn")
        }
    }

    /// Cancels the question when `ticket` is withdrawn, on a thread of its own that ends with the
    /// question (`finished`).
    private static func watch(_ ticket: PromptTicket, until finished: Wakeup, cancelling: NotificationCancellation) {
        let thread = Thread {
            var descriptors = [
                pollfd(fd: ticket.descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: finished.descriptor, events: Int16(POLLIN), revents: 0),
            ]
            while ticket.withdrawal == nil && !finished.isSignalled {
                _ = poll(&descriptors, 2, 1000)
            }
            if ticket.withdrawal != nil { cancelling.cancel() }
        }
        thread.name = "share.ask.watch"
        thread.start()
    }

    /// The notification for `content`, saying how many questions wait behind it.
    private static func notification(_ content: Content, waiting: Int) -> DesktopNotification {
        let summary = content.lines.first.map { $0.hasSuffix(":") ? String($0.dropLast()) : $0 } ?? content.question
        var parts: [DesktopNotification.BodyPart] = []
        for line in content.lines.dropFirst() {
            parts += line.hasPrefix(OfferSummary.notePrefix) ? linkingWebAddresses(line) : [.text(line)]
            parts.append(.text("\n"))
        }
        let note = QuestionQueue.waitingNote(waiting)
        parts.append(.text(content.question + (note.isEmpty ? "" : "\n" + note)))
        var notification = DesktopNotification(
            summary: summary, bodyParts: parts,
            actions: [.init(key: acceptKey, label: content.accept), .init(key: declineKey, label: content.decline)],
            urgency: .critical)
        notification.category = content.category
        notification.icon = "dialog-question"
        return notification
    }

    /// `line` with each `http`/`https` address in it (a word, less the punctuation that ends a
    /// sentence or closes a bracket) as a link.
    static func linkingWebAddresses(_ line: String) -> [DesktopNotification.BodyPart] {
        var parts: [DesktopNotification.BodyPart] = []
        var text = ""
        var rest = Substring(line)
        while !rest.isEmpty {
            let spaces = rest.prefix { $0 == " " }
            text += spaces
            rest = rest.dropFirst(spaces.count)
            var word = rest.prefix { $0 != " " }
            rest = rest.dropFirst(word.count)
            var trailing = ""
            while let last = word.last, ".,;:!?)]}'\"".contains(last) {
                trailing = String(last) + trailing
                word = word.dropLast()
            }
            if DesktopNotifier.isWebAddress(String(word)) {
                if !text.isEmpty { parts.append(.text(text)) }
                parts.append(.link(String(word)))
                text = trailing
            } else {
                text += word + trailing
            }
        }
        if !text.isEmpty { parts.append(.text(text)) }
        return parts
    }
}
