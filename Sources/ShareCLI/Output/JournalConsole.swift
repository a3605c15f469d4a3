import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The console of a service (`share receive --service`): what it writes reads well in the journal.
///
/// - Every write becomes exactly one line: one event, one journal entry (newlines inside a
///   message become spaces).
/// - Nothing is drawn: no progress, no prompts, as if there were no terminal at all.
/// - When stdout is the journal's stream (systemd sets `JOURNAL_STREAM` to its device and inode),
///   each line starts with its syslog priority (`<3>` for `Error:`, `<4>` for `Warning:`, `<5>` for
///   other messages on stderr, `<6>` for the rest), which journald stores as the entry's priority
///   (`journalctl -p warning`) and strips from the text. Elsewhere the lines stay plain.
enum JournalConsole {
    /// A console over file descriptors 1 and 2 for a service.
    static func make(environment: [String: String]) -> Console {
        let prefixed =
            isJournal(environment["JOURNAL_STREAM"], fd: 1) || isJournal(environment["JOURNAL_STREAM"], fd: 2)
        return Console(environment: environment, stderrIsTerminal: false, stdinIsTerminal: false) { fd, text in
            Console.writeAll(fd, line(text, fd: fd, prefixed: prefixed))
        }
    }

    /// `text` as one line, with its priority when `prefixed`.
    static func line(_ text: String, fd: Int32, prefixed: Bool) -> String {
        var body = text
        while body.last?.isNewline == true { body.removeLast() }
        body = String(body.map { $0.isNewline ? " " : $0 })
        guard prefixed else { return body + "\n" }
        let priority: Int
        if body.hasPrefix("Error:") {
            priority = 3
        } else if body.hasPrefix("Warning:") {
            priority = 4
        } else {
            priority = fd == 2 ? 5 : 6
        }
        return "<\(priority)>" + body + "\n"
    }

    /// Whether `fd` is the stream `JOURNAL_STREAM` (`DEVICE:INODE`) names.
    private static func isJournal(_ value: String?, fd: Int32) -> Bool {
        guard let value else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }
}
