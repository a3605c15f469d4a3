import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Where the CLI writes: stdout for results and help, stderr for errors, prompts and progress.
///
/// On a terminal the console owns the last line of the screen: a progress line, or the line of a
/// question being asked (with what the user typed so far). Everything else written while such a
/// line is shown goes above it: the line is erased, the text written, and the line drawn again, so
/// no message ever lands in the middle of a question, and progress pauses while a question is
/// asked. Tests capture both streams in memory; the real console writes to file descriptors 1 and 2.
public final class Console: Sendable {
    private let sink: @Sendable (Int32, String) -> Void
    /// Whether stderr is a terminal (progress and prompts are drawn only then).
    public let stderrIsTerminal: Bool
    /// Whether stdin is a terminal (prompts are possible only then).
    public let stdinIsTerminal: Bool
    /// Whether stdout is a terminal (it then shares the screen with stderr).
    public let stdoutIsTerminal: Bool
    /// The environment variables the CLI sees.
    public let environment: [String: String]
    private let screen = Mutex(Screen())

    /// The transient last line and what it shows.
    private struct Screen {
        /// The progress line, when there is one.
        var status: String?
        /// The question's line (with the answer typed so far), while a question is asked.
        var prompt: String?
        /// Whether a transient line is on the screen now.
        var drawn = false

        var line: String? { prompt ?? status }
    }

    /// Creates a console writing through `sink` (1 = stdout, 2 = stderr).
    public init(
        environment: [String: String], stderrIsTerminal: Bool, stdinIsTerminal: Bool, stdoutIsTerminal: Bool = false,
        sink: @escaping @Sendable (Int32, String) -> Void
    ) {
        self.environment = environment
        self.stderrIsTerminal = stderrIsTerminal
        self.stdinIsTerminal = stdinIsTerminal
        self.stdoutIsTerminal = stdoutIsTerminal
        self.sink = sink
    }

    /// The process's real stdout and stderr.
    public static var standard: Console {
        Console(
            environment: processEnvironment(), stderrIsTerminal: isatty(2) == 1,
            stdinIsTerminal: isatty(0) == 1, stdoutIsTerminal: isatty(1) == 1
        ) { fd, text in
            writeAll(fd, text)
        }
    }

    /// The process's environment, read from `environ` as `getenv` does (the first of two entries with
    /// one name wins). Not `ProcessInfo`'s: starting it up took half of the time `share --version`
    /// spends in Swift code (docs/PERFORMANCE.md §6).
    static func processEnvironment() -> [String: String] {
        var count = 0
        while environ[count] != nil { count += 1 }
        var environment: [String: String] = [:]
        environment.reserveCapacity(count)
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "="), environment[String(text[..<equals])] == nil {
                environment[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        return environment
    }

    /// Writes all of `text` to `fd`, retrying on EINTR.
    static func writeAll(_ fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }

    /// Writes `text` to stdout.
    public func out(_ text: String) { emit(1, text) }
    /// Writes `text` to stderr.
    public func err(_ text: String) { emit(2, text) }
    /// Writes a line to stdout.
    public func line(_ text: String = "") { out(text + "\n") }

    /// Writes to stdout the pieces `produce` hands over, with nothing else written between them: a
    /// line too long to build in memory at once (a report listing a million files).
    public func out(streaming produce: ((String) -> Void) -> Void) {
        screen.withLock { screen in
            let sharesScreen = stdoutIsTerminal && stderrIsTerminal
            if sharesScreen { erase(&screen) }
            produce { sink(1, $0) }
            if sharesScreen { redraw(&screen) }
        }
    }
    /// Writes `Error: text` to stderr.
    public func error(_ text: String) { err("Error: \(text)\n") }
    /// Writes `Warning: text` to stderr.
    public func warning(_ text: String) { err("Warning: \(text)\n") }

    /// Shows `text` as the progress line (nil: none). It is not drawn while a question is asked.
    func setStatus(_ text: String?) {
        guard stderrIsTerminal else { return }
        screen.withLock { screen in
            screen.status = text.map(fit)
            if screen.prompt == nil { redraw(&screen) }
        }
    }

    /// Starts a question: prints `lines` above, then shows `prompt` as the last line (in place of
    /// any progress), all at once so nothing comes between them.
    func beginPrompt(lines: [String], prompt: String) {
        screen.withLock { screen in
            erase(&screen)
            if !lines.isEmpty { sink(2, lines.joined(separator: "\n") + "\n") }
            screen.prompt = prompt
            redraw(&screen)
        }
    }

    /// Updates the question's line (what the user typed, how many more questions wait).
    func updatePrompt(_ prompt: String) {
        screen.withLock { screen in
            guard screen.prompt != prompt else { return }
            screen.prompt = prompt
            redraw(&screen)
        }
    }

    /// Ends the question: its line stays on the screen as answered, followed by `note` if any, and
    /// progress may be drawn again.
    func endPrompt(note: String? = nil) {
        screen.withLock { screen in
            guard let prompt = screen.prompt else { return }
            erase(&screen)
            sink(2, prompt + "\n" + (note.map { $0 + "\n" } ?? ""))
            screen.prompt = nil
            redraw(&screen)
        }
    }

    private func emit(_ fd: Int32, _ text: String) {
        screen.withLock { screen in
            let sharesScreen = fd == 2 ? stderrIsTerminal : stdoutIsTerminal && stderrIsTerminal
            if sharesScreen { erase(&screen) }
            sink(fd, text)
            if sharesScreen { redraw(&screen) }
        }
    }

    private func erase(_ screen: inout Screen) {
        guard screen.drawn else { return }
        sink(2, "\r\u{1B}[K")
        screen.drawn = false
    }

    private func redraw(_ screen: inout Screen) {
        guard stderrIsTerminal else { return }
        if screen.drawn { sink(2, "\r\u{1B}[K") }
        if let line = screen.line {
            sink(2, line)
            screen.drawn = true
        } else {
            screen.drawn = false
        }
    }

    /// Clips a progress line to the terminal's width, so it never wraps.
    private func fit(_ text: String) -> String {
        let limit = max(width - 1, 10)
        guard text.count > limit else { return text }
        return String(text.prefix(limit - 1)) + "…"
    }

    /// The terminal's width: stderr's window size, else `COLUMNS`, else 80.
    var width: Int {
        if stderrIsTerminal {
            var size = winsize()
            if ioctl(2, UInt(TIOCGWINSZ), &size) == 0, size.ws_col >= 20 { return Int(size.ws_col) }
        }
        if let text = environment["COLUMNS"], let value = Int(text), value >= 40 { return value }
        return 80
    }
}
