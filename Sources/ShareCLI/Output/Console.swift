import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Where the CLI writes: stdout for results and help, stderr for errors, prompts and progress.
///
/// Tests capture both streams in memory; the real console writes to file descriptors 1 and 2.
public final class Console: Sendable {
    private let sink: @Sendable (Int32, String) -> Void
    /// Whether stderr is a terminal (progress is drawn only then).
    public let stderrIsTerminal: Bool
    /// Whether stdin is a terminal (prompts are possible only then).
    public let stdinIsTerminal: Bool
    /// The environment variables the CLI sees.
    public let environment: [String: String]
    private let lock = Mutex(())

    /// Creates a console writing through `sink` (1 = stdout, 2 = stderr).
    public init(
        environment: [String: String], stderrIsTerminal: Bool, stdinIsTerminal: Bool,
        sink: @escaping @Sendable (Int32, String) -> Void
    ) {
        self.environment = environment
        self.stderrIsTerminal = stderrIsTerminal
        self.stdinIsTerminal = stdinIsTerminal
        self.sink = sink
    }

    /// The process's real stdout and stderr.
    public static var standard: Console {
        Console(
            environment: ProcessInfo.processInfo.environment, stderrIsTerminal: isatty(2) == 1,
            stdinIsTerminal: isatty(0) == 1
        ) { fd, text in
            writeAll(fd, text)
        }
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
    public func out(_ text: String) { lock.withLock { _ in sink(1, text) } }
    /// Writes `text` to stderr.
    public func err(_ text: String) { lock.withLock { _ in sink(2, text) } }
    /// Writes a line to stdout.
    public func line(_ text: String = "") { out(text + "\n") }
    /// Writes `Error: text` to stderr.
    public func error(_ text: String) { err("Error: \(text)\n") }
    /// Writes `Warning: text` to stderr.
    public func warning(_ text: String) { err("Warning: \(text)\n") }

    /// The terminal width (from `COLUMNS`, else 80).
    var width: Int {
        if let text = environment["COLUMNS"], let value = Int(text), value >= 40 { return value }
        return 80
    }
}
