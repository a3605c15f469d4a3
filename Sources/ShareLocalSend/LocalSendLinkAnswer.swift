/// What a download link answers one request with (``LocalSendLinkSession/answer(method:target:from:now:)``).
public enum LocalSendLinkAnswer: Sendable, Equatable {
    /// An HTML page (the file list, the PIN form, or why the request was refused), with its status.
    case page(status: Int, html: String)
    /// `prepare-download`'s JSON (status 200).
    case json([UInt8])
    /// The bytes of this file (status 200).
    case file(LocalSendLinkFile)

    /// The HTTP status it is sent with.
    public var status: Int {
        switch self {
        case .page(let status, _): status
        case .json, .file: 200
        }
    }
}
