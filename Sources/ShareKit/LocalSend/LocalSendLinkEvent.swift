/// What happens while a download link is served (``LocalSendLink/serve(timeout:cancellation:events:)``).
public enum LocalSendLinkEvent: Sendable, Equatable {
    /// `file` was downloaded whole by `address`; `filesDone` of `filesTotal` files were now
    /// downloaded at least once.
    case downloaded(file: String, by: String, filesDone: Int, filesTotal: Int)
    /// `address` stopped downloading `file` before its end (the browser cancelled, or went away).
    case stopped(file: String, by: String)
    /// `address` gave three wrong PINs within a minute and is locked out for a minute.
    case lockedOut(String)
}
