import Foundation

/// An argument of a command share suggests to its user, written so that the command pastes into a
/// POSIX shell as shown: messages print such commands after a colon, unquoted themselves
/// (`run this …: share trust verify 'bob-desk'`), so that no quotes end up inside quotes.
public enum ShellWord {
    /// `text` in single quotes, each single quote inside closed, escaped and reopened (`'it'\''s'`).
    public static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
