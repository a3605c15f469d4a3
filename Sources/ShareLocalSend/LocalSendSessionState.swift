/// The one LocalSend session a receiver holds at a time, as a state machine without I/O: who may
/// upload what, and when a silent session is released. Tokens and time come from the caller.
public struct LocalSendSessionState: Sendable {
    /// Why a request is refused, with the HTTP status LocalSend uses for it.
    public enum Refusal: Error, Sendable, Equatable {
        /// Another session is open (409).
        case busy
        /// The session, the file, the token or the address is not the one accepted (403).
        case forbidden(String)

        /// The HTTP status.
        public var status: Int {
            switch self {
            case .busy: 409
            case .forbidden: 403
            }
        }
    }

    /// The open session.
    public struct Session: Sendable, Equatable {
        /// Its id (random, from the caller).
        public var id: String
        /// The address that prepared it: uploads come from there only.
        public var address: String
        /// The accepted files by id, with their tokens.
        public var tokens: [String: String]
        /// The files uploaded whole so far.
        public var done: Set<String> = []
        /// When it last moved (prepared, or a byte of an upload arrived).
        public var lastActivity: ContinuousClock.Instant
    }

    /// How long a session may stand without a byte before another sender may prepare one, by default.
    public static let defaultStallLimit: Duration = .seconds(60)

    /// How long a session may stand without a byte before it is released.
    public let stallLimit: Duration

    /// The open session, if any.
    public private(set) var current: Session?

    /// No session; one that stands still for `stallLimit` is released.
    public init(stallLimit: Duration = LocalSendSessionState.defaultStallLimit) {
        self.stallLimit = stallLimit
    }

    /// Opens a session for `address` with `tokens` (file id to token) at `now`, unless another is
    /// open and still moving.
    public mutating func open(id: String, address: String, tokens: [String: String], now: ContinuousClock.Instant) throws(Refusal) {
        releaseIfStalled(now: now)
        if current != nil { throw .busy }
        current = Session(id: id, address: address, tokens: tokens, lastActivity: now)
    }

    /// Whether another sender may prepare now (no session, or a stalled one).
    public mutating func isFree(now: ContinuousClock.Instant) -> Bool {
        releaseIfStalled(now: now)
        return current == nil
    }

    /// Checks an upload of `fileID` with `token` from `address` in session `sessionID`.
    public func authorize(sessionID: String, fileID: String, token: String, address: String) throws(Refusal) {
        guard let session = current, session.id == sessionID else { throw .forbidden("no such session") }
        guard session.address == address else { throw .forbidden("uploads come only from the address that prepared the session") }
        guard let expected = session.tokens[fileID], expected == token else { throw .forbidden("no such file, or a wrong token") }
        guard !session.done.contains(fileID) else { throw .forbidden("that file was uploaded already") }
    }

    /// Bytes of an upload arrived: the session is not stalled.
    public mutating func moved(now: ContinuousClock.Instant) { current?.lastActivity = now }

    /// A file arrived whole; returns whether that was the last one.
    public mutating func finished(fileID: String, now: ContinuousClock.Instant) -> Bool {
        guard var session = current else { return false }
        session.done.insert(fileID)
        session.lastActivity = now
        current = session
        return session.done.count == session.tokens.count
    }

    /// Ends the session (completed, or cancelled by the address that prepared it); returns the
    /// session ended, nil when `sessionID` is not the open one or `address` did not prepare it.
    public mutating func close(sessionID: String, address: String?) -> Session? {
        guard let session = current, session.id == sessionID, address == nil || address == session.address else { return nil }
        current = nil
        return session
    }

    /// Releases a session silent for ``stallLimit``; returns it so that its partial files go.
    @discardableResult
    public mutating func releaseIfStalled(now: ContinuousClock.Instant) -> Session? {
        guard let session = current, now - session.lastActivity >= stallLimit else { return nil }
        current = nil
        return session
    }
}
