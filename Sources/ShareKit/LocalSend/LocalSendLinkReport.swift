/// How serving a download link ended (``LocalSendLink/serve(timeout:cancellation:events:)``).
public struct LocalSendLinkReport: Sendable {
    /// Why it stopped.
    public enum Ending: Sendable, Equatable {
        /// Every file was downloaded whole at least once.
        case complete
        /// The timeout passed first.
        case timedOut
        /// It was cancelled (Ctrl-C).
        case cancelled
        /// It could not go on (a file changed while it was served); the reason.
        case failed(String)
    }

    /// Why it stopped.
    public var ending: Ending
    /// The files downloaded whole at least once, by name, in the order of the link.
    public var downloadedFiles: [String]
    /// Files the link served.
    public var fileCount: Int
    /// Whole downloads, counting a file downloaded twice twice.
    public var downloads: Int
    /// How long it served.
    public var seconds: Double
}
