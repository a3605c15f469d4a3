import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a password typed on the terminal without showing it.
///
/// The terminal (stdin) is put into non-canonical mode without echo and without signal keys for the
/// duration of the question and restored afterwards whatever happens, so an interrupted question
/// never leaves the terminal silent: Ctrl-C and Ctrl-D cancel, Backspace and Ctrl-U edit, Enter
/// ends the line. Nothing typed is printed, not even as stars.
enum SecretPrompt {
    /// Why no password was read.
    enum Failure: Error {
        /// Standard input is not a terminal.
        case noTerminal
        /// The user pressed Ctrl-C or Ctrl-D, or gave no answer in time.
        case cancelled
    }

    /// The longest answer kept, in bytes.
    static let maximumLength = 1024

    /// Prints `prompt` on stderr and reads one line from the terminal without echo.
    /// - Parameters:
    ///   - prompt: the question, e.g. `Password for "trip.mtt": `.
    ///   - console: where the prompt goes.
    ///   - timeout: how long to wait for the whole answer.
    static func read(_ prompt: String, console: Console, timeout: Duration = .seconds(300)) throws(Failure)
        -> [UInt8]
    {
        guard isatty(0) == 1 else { throw .noTerminal }
        var saved = termios()
        guard tcgetattr(0, &saved) == 0 else { throw .noTerminal }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | ISIG | IEXTEN)
        withUnsafeMutableBytes(of: &quiet.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        // Silence the terminal before asking, so nothing typed after the question is ever shown.
        guard tcsetattr(0, TCSAFLUSH, &quiet) == 0 else { throw .noTerminal }
        console.err(prompt)
        defer {
            _ = tcsetattr(0, TCSAFLUSH, &saved)
            console.err("\n")
        }
        var line: [UInt8] = []
        let deadline = ContinuousClock.now + timeout
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { throw .cancelled }
            var pfd = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            let millis = Int32(clamping: left.components.seconds * 1000 + 1)
            guard poll(&pfd, 1, max(1, min(millis, 1000))) > 0 else { continue }
            var byte: UInt8 = 0
            let count = Glibc.read(0, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { throw .cancelled }
            switch byte {
            case 0x0A, 0x0D:
                return line
            case 0x03, 0x04:
                for index in line.indices { line[index] = 0 }
                throw .cancelled
            case 0x08, 0x7F:
                // Remove the last character, with all the bytes of its UTF-8 encoding.
                while let last = line.popLast(), last & 0xC0 == 0x80 {}
            case 0x15:
                for index in line.indices { line[index] = 0 }
                line.removeAll()
            default:
                if line.count < maximumLength { line.append(byte) }
            }
        }
    }
}
