import Foundation

/// The rules of a download link (`share send --link`, LocalSend's reverse transfer): which request
/// gets a page, the file list as JSON, a file's bytes, or a refusal, and when every file was
/// downloaded whole. Sans-I/O: the caller gives each request's method, target, address and time,
/// sends what it is told, and says which downloads ended whole.
///
/// - The session token (in the address: `/?session=TOKEN`, `sessionId=TOKEN` for the API) is the
///   secret: a request without it, or with another, is refused (403) before anything else is said.
/// - With a PIN, a request must give it (`pin=`) or come from an address that gave it before (a
///   browser asks once, then follows plain links; a LocalSend app downloads after
///   `prepare-download`). A wrong PIN is 401; the third wrong one within a minute from one address
///   locks that address out for a minute (429, ``LocalSendPinGate``). A missing PIN is not a guess.
/// - `GET /` is the page, `POST /api/localsend/v2/prepare-download` the file list as JSON,
///   `GET /api/localsend/v2/download?fileId=` a file; anything else is 404.
public struct LocalSendLinkSession: Sendable {
    /// The routes of LocalSend's reverse transfer.
    public static let prepareDownloadPath = "/api/localsend/v2/prepare-download"
    /// Where a file is downloaded.
    public static let downloadPath = "/api/localsend/v2/download"
    /// Addresses remembered as having given the PIN.
    public static let unlockedAddresses = 1024

    /// The token of the address.
    public let token: String
    /// The files, in the order they are listed.
    public let files: [LocalSendLinkFile]
    /// The ids of the files downloaded whole at least once.
    public private(set) var downloaded: Set<String> = []

    private let alias: String
    private let device: [UInt8]
    private let pinRequired: Bool
    private var gate: LocalSendPinGate
    private var unlocked: [String] = []

    /// A link to `files` under `token`, served by `alias` whose LocalSend description is `device`
    /// (JSON), asking for `pin` when there is one.
    public init(token: String, files: [LocalSendLinkFile], alias: String, device: [UInt8], pin: String?) {
        self.token = token
        self.files = files
        self.alias = alias
        self.device = device
        let pin = pin.flatMap { $0.isEmpty ? nil : $0 }
        pinRequired = pin != nil
        gate = LocalSendPinGate(pin: pin)
    }

    /// Whether every file was downloaded whole at least once.
    public var isComplete: Bool { downloaded.count == files.count }

    /// Records that `fileID` was sent whole to someone.
    public mutating func downloadedWhole(_ fileID: String) {
        if files.contains(where: { $0.id == fileID }) { downloaded.insert(fileID) }
    }

    /// What to answer `method` `target` (path and query, as in the request line) from `address` at `now`.
    public mutating func answer(method: String, target: String, from address: String, now: ContinuousClock.Instant)
        -> LocalSendLinkAnswer
    {
        let (path, query) = Self.split(target)
        switch (method, path) {
        case ("GET", "/"):
            guard sameToken(query["session"] ?? query["sessionId"]) else { return Self.wrongSession }
            switch unlock(query["pin"], from: address, now: now) {
            case .open: return .page(status: 200, html: LocalSendLinkPage.files(files, session: token, alias: alias))
            case .missing: return .page(status: 401, html: LocalSendLinkPage.pinForm(session: token, alias: alias, wrong: false))
            case .wrong: return .page(status: 401, html: LocalSendLinkPage.pinForm(session: token, alias: alias, wrong: true))
            case .locked: return Self.locked
            }
        case ("POST", Self.prepareDownloadPath):
            guard sameToken(query["sessionId"]) else { return Self.wrongSession }
            switch unlock(query["pin"], from: address, now: now) {
            case .open: return .json(prepareDownloadBody)
            case .missing, .wrong: return Self.wrongPin
            case .locked: return Self.locked
            }
        case ("GET", Self.downloadPath):
            guard sameToken(query["sessionId"]) else { return Self.wrongSession }
            switch unlock(query["pin"], from: address, now: now) {
            case .open: break
            case .missing, .wrong: return Self.wrongPin
            case .locked: return Self.locked
            }
            guard let id = query["fileId"], let file = files.first(where: { $0.id == id }) else { return Self.notFound }
            return .file(file)
        default:
            return Self.notFound
        }
    }

    /// The answer to `prepare-download`: this device, the session, and every file keyed by its id.
    public var prepareDownloadBody: [UInt8] {
        let info = (try? JSONSerialization.jsonObject(with: Data(device))) ?? [:]
        var described: [String: Any] = [:]
        for file in files {
            described[file.id] = [
                "id": file.id, "fileName": file.fileName, "size": file.size, "fileType": file.fileType,
                "sha256": file.sha256, "preview": NSNull(),
            ] as [String: Any]
        }
        let body: [String: Any] = ["info": info, "sessionId": token, "files": described]
        return Array((try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data("{}".utf8))
    }

    private enum Access { case open, missing, wrong, locked }

    /// Whether `address` may see the files, given the PIN it sent (if any).
    private mutating func unlock(_ given: String?, from address: String, now: ContinuousClock.Instant) -> Access {
        guard pinRequired else { return .open }
        if unlocked.contains(address) && given == nil { return .open }
        guard let given else { return .missing }
        switch gate.check(given, from: address, now: now) {
        case .open:
            if !unlocked.contains(address) {
                unlocked.append(address)
                if unlocked.count > Self.unlockedAddresses { unlocked.removeFirst() }
            }
            return .open
        case .wrong: return .wrong
        case .locked: return .locked
        }
    }

    /// Compares with the token without stopping at the first differing byte.
    private func sameToken(_ given: String?) -> Bool {
        guard let given else { return false }
        let x = Array(given.utf8)
        let y = Array(token.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for index in 0..<min(x.count, y.count) { difference |= x[index] ^ y[index] }
        return difference == 0
    }

    /// The path and the query's values (percent-decoded, `+` as a space as forms send it; the first
    /// of a repeated name wins).
    static func split(_ target: String) -> (path: String, query: [String: String]) {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = parts.first.map(String.init) ?? ""
        var query: [String: String] = [:]
        if parts.count == 2 {
            for pair in parts[1].split(separator: "&") {
                let nameValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                func decoded(_ text: Substring) -> String? {
                    String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
                }
                guard let name = decoded(nameValue[0]), query[name] == nil else { continue }
                query[name] = nameValue.count == 2 ? decoded(nameValue[1]) : ""
            }
        }
        return (path, query)
    }

    private static let wrongSession = LocalSendLinkAnswer.page(
        status: 403,
        html: LocalSendLinkPage.refusal(
            "This link is not valid", "Open the whole address share printed; it is valid only while share serves it."))
    private static let wrongPin = LocalSendLinkAnswer.page(
        status: 401, html: LocalSendLinkPage.refusal("PIN required", "The PIN is missing or wrong."))
    private static let locked = LocalSendLinkAnswer.page(
        status: 429, html: LocalSendLinkPage.refusal("Too many wrong PINs", "Wait a minute, then try again."))
    private static let notFound = LocalSendLinkAnswer.page(
        status: 404, html: LocalSendLinkPage.refusal("Not found", "There is nothing here."))
}
