import ShareKit
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Asks the user yes/no questions on the terminal, one at a time (several offers may arrive at
/// once; each waits its turn).
final class Prompter: Sendable {
    private let console: Console
    private let turn = Mutex(())
    /// How long an unanswered question waits before it counts as "no".
    let timeout: Duration

    init(console: Console, timeout: Duration = .seconds(300)) {
        self.console = console
        self.timeout = timeout
    }

    /// Whether there is a terminal to ask on.
    var canAsk: Bool { console.stdinIsTerminal }

    /// Prints `question` and waits for an answer; only `y` or `yes` (any case) count as yes.
    func confirm(_ question: String) -> Bool {
        turn.withLock { _ in
            console.err(question + " [y/N] ")
            guard let answer = Self.readLine(timeout: timeout) else {
                console.err("\n(no answer; declined)\n")
                return false
            }
            let word = answer.lowercased().split(separator: " ").first.map(String.init) ?? ""
            return word == "y" || word == "yes"
        }
    }

    /// Reads one line from stdin, waiting at most `timeout`.
    private static func readLine(timeout: Duration) -> String? {
        let deadline = ContinuousClock.now + timeout
        var bytes: [UInt8] = []
        while ContinuousClock.now < deadline {
            let left = deadline - ContinuousClock.now
            var pfd = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            let millis = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
            guard poll(&pfd, 1, max(millis, 1)) > 0 else { continue }
            var byte: UInt8 = 0
            let count = read(0, &byte, 1)
            if count <= 0 { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            if bytes.count < 256 { bytes.append(byte) }
        }
        return nil
    }
}
