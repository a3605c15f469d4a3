import ShareKit

#if canImport(Glibc)
import Glibc
#endif

/// Asks the user yes/no questions on the terminal, one at a time.
///
/// Questions that arrive while one is asked wait their turn, and the question on screen says how
/// many wait behind it. The answer is read a key at a time (the terminal's echo is off while
/// asking, and the console draws what was typed), so messages from other transfers are printed
/// above the question, never into it. A question ends at once when its ``PromptTicket`` is
/// withdrawn (the peer gave up; Ctrl-C or SIGTERM stopped the program), and counts as "no answer"
/// after ``timeout``.
final class Prompter: Sendable {
    /// How a question ended.
    enum Answer: Sendable, Equatable {
        case yes
        case no
        /// Nobody answered within the timeout.
        case timedOut
        /// The question was withdrawn, for this reason.
        case withdrawn(String)
    }

    private let console: Console
    /// How long an unanswered question waits before it counts as "no answer".
    let timeout: Duration
    /// One question at a time.
    private let questions = QuestionQueue()

    init(console: Console, timeout: Duration = .seconds(300)) {
        self.console = console
        self.timeout = timeout
    }

    /// Whether there is a terminal to ask on.
    var canAsk: Bool { console.stdinIsTerminal && console.stderrIsTerminal }

    /// How many questions are waiting behind the one on screen.
    var waiting: Int { questions.waiting }

    /// Shows `lines`, then asks `question` `[y/N]` and waits for the answer: only `y` or `yes` (any
    /// case) count as yes. What was typed before the question appeared is discarded.
    func ask(_ lines: [String], question: String, ticket: PromptTicket? = nil) -> Answer {
        questions.inTurn(ticket: ticket, withdrawn: { .withdrawn($0) }) {
            let raw = RawInput()
            defer { raw.restore() }
            switch readAnswer(lines, question: question, hint: "[y/N]", ticket: ticket, deadline: .now + timeout) {
            case .ended(let answer):
                return answer
            case .typed(let typed):
                console.endPrompt()
                let word = typed.lowercased().split(separator: " ").first.map(String.init) ?? ""
                return word == "y" || word == "yes" ? .yes : .no
            }
        }
    }

    /// Shows `lines`, then asks whether the other side shows the same verification code: the user
    /// answers yes by typing the code's last digits (``CodeConfirmation``), never with a y. Other
    /// text is asked again once, then counts as no. What was typed before the question appeared
    /// (or appeared again) is discarded.
    func confirm(_ lines: [String], _ code: CodeConfirmation, ticket: PromptTicket? = nil) -> Answer {
        questions.inTurn(ticket: ticket, withdrawn: { .withdrawn($0) }) {
            let raw = RawInput()
            defer { raw.restore() }
            let deadline = ContinuousClock.now + timeout
            let digits = "not its last \(code.expected.count) digits"
            var shown = lines
            var retried = false
            while true {
                switch readAnswer(shown, question: code.question, hint: code.instruction, ticket: ticket, deadline: deadline) {
                case .ended(let answer):
                    return answer
                case .typed(let typed):
                    switch code.reply(to: typed) {
                    case .confirmed:
                        console.endPrompt()
                        return .yes
                    case .declined:
                        console.endPrompt()
                        return .no
                    case .other where retried:
                        console.endPrompt(note: "(\(digits) again: answered no)")
                        return .no
                    case .other:
                        console.endPrompt(note: "(\(digits): compare the codes and type them again)")
                        shown = []
                        retried = true
                    }
                }
            }
        }
    }

    /// How reading an answer ended.
    private enum Reading {
        /// The user pressed Enter after typing this (the question's line is still shown).
        case typed(String)
        /// The question ended without an answer (its line is ended already).
        case ended(Answer)
    }

    /// Shows `lines` and the question's line (`question`, how many questions wait, `hint`, what
    /// was typed), discards what was typed before it appeared, and reads a line a key at a time.
    private func readAnswer(
        _ lines: [String], question: String, hint: String, ticket: PromptTicket?, deadline: ContinuousClock.Instant
    ) -> Reading {
        var typed = ""
        func line() -> String {
            let note = QuestionQueue.waitingNote(waiting)
            return question + (note.isEmpty ? "" : " " + note) + " " + hint + " " + typed
        }
        console.beginPrompt(lines: lines, prompt: line())
        // Keys typed before the question was on the screen answer nothing: a "y" typed into an idle
        // terminal must not accept the next offer, nor confirm a code nobody compared.
        if isatty(0) == 1 { _ = tcflush(0, TCIFLUSH) }
        while true {
            if let reason = ticket?.withdrawal {
                console.endPrompt(note: "(\(reason))")
                return .ended(.withdrawn(reason))
            }
            let left = deadline - ContinuousClock.now
            if left <= .zero {
                console.endPrompt(note: "(no answer within \(timeout.components.seconds / 60 >= 1 ? "\(timeout.components.seconds / 60) min" : "\(timeout.components.seconds) s"); declined)")
                return .ended(.timedOut)
            }
            var fds = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0)]
            if let ticket { fds.append(pollfd(fd: ticket.descriptor, events: Int16(POLLIN), revents: 0)) }
            // Wake now and then to show how many questions wait.
            let millis = Int32(clamping: min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000, 250))
            guard poll(&fds, nfds_t(fds.count), max(millis, 1)) > 0, fds[0].revents != 0 else {
                console.updatePrompt(line())
                continue
            }
            var byte: UInt8 = 0
            let count = read(0, &byte, 1)
            if count <= 0 {
                console.endPrompt(note: "(no answer; declined)")
                return .ended(.timedOut)
            }
            switch byte {
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                return .typed(typed)
            case 0x7F, 0x08:
                if !typed.isEmpty { typed.removeLast() }
            case 0x15:  // Ctrl-U
                typed = ""
            case 0x20...0x7E:
                if typed.count < 32 { typed.append(Character(Unicode.Scalar(byte))) }
            default:
                break
            }
            console.updatePrompt(line())
        }
    }
}

/// The terminal's line editing and echo, turned off while a question is asked (signals such as
/// Ctrl-C still work) and restored afterwards.
private final class RawInput {
    private var saved = termios()
    private var active = false

    init() {
        guard isatty(0) == 1, tcgetattr(0, &saved) == 0 else { return }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        active = tcsetattr(0, TCSANOW, &raw) == 0
    }

    func restore() {
        if active { _ = tcsetattr(0, TCSANOW, &saved) }
        active = false
    }
}
