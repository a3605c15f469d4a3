/// A verification code confirmed on the terminal by typing its last group of digits, as the other
/// side shows them, rather than by answering y.
///
/// A y is one keystroke and can be typed ahead, by habit, or into the wrong window; typing the
/// digits seen on the other screen cannot happen by accident and makes the person look at that
/// screen. Digits that do not match this side's code are asked again once (a typo), and then count
/// as no: the other side shows another code. Enter alone, `n` or `no` answer no at once.
struct CodeConfirmation: Sendable, Equatable {
    /// The question on its own: `Does "bob" show the same code?`.
    let question: String
    /// What to type and what it does: `Type its last 3 digits to confirm (Enter alone: no):`.
    let instruction: String
    /// The digits that confirm: the code's last group (`551` of `482 913 074 551`).
    let expected: String

    /// The confirmation of `code` (`482 913 074 551`) as shown by `peerName` (escaped already);
    /// `purpose` says what typing the digits does (`to confirm`, `to accept`).
    init(code: String, peerName: String, purpose: String) {
        expected = String(code.split(separator: " ").last ?? Substring(code))
        question = "Does \(peerName) show the same code?"
        instruction = "Type its last \(expected.count) digits \(purpose) (Enter alone: no):"
    }

    /// How typed text answers the question.
    enum Reply: Equatable {
        /// The code's last digits: the codes match.
        case confirmed
        /// Enter alone, `n` or `no`.
        case declined
        /// Anything else: other digits, or a y.
        case other
    }

    /// How `typed` answers (spaces ignored; the letters in any case).
    func reply(to typed: String) -> Reply {
        let answer = typed.filter { $0 != " " }.lowercased()
        if answer == expected { return .confirmed }
        if answer.isEmpty || answer == "n" || answer == "no" { return .declined }
        return .other
    }
}
