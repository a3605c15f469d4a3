import Foundation
import ShareDNS
import ShareDocuments
import ShareHTTP
import ShareLocalSend
import ShareTLS
import ShareTransport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `share send FILE... --link`: serves files to any browser, and to LocalSend apps, with
/// LocalSend's reverse transfer (its download API) over plain HTTP, at an address with an
/// unguessable session token, until every file was downloaded whole once, the timeout passes or
/// the user stops it.
///
/// Plain HTTP because browsers refuse self-signed certificates: the token and the PIN cross the
/// network readable (docs/SECURITY.md). The rules (token, PIN, routes, page, JSON) are
/// ``LocalSendLinkSession``'s; this class binds the port, streams the files and checks each one
/// is still what was offered before its last bytes leave.
public final class LocalSendLink: Sendable {
    /// LocalSend's port, tried first.
    public static let defaultPort: UInt16 = 53317
    /// How long a link is served unless told otherwise.
    public static let defaultTimeout: Duration = .seconds(600)

    /// The port it serves on.
    public let port: UInt16
    /// The port asked for (another was taken when it was busy).
    public let requestedPort: UInt16
    /// The addresses to open, one per IPv4 address of this machine, the one of the default route
    /// first; `http://127.0.0.1:...` alone when it has none.
    public let urls: [String]
    /// Whether this machine has no network address, so only it can open the link.
    public var onlyThisMachine: Bool { urls.first?.hasPrefix("http://127.0.0.1:") == true }
    /// Files served.
    public var fileCount: Int { files.count }
    /// Their size together.
    public let bytes: UInt64
    /// What LocalSend cannot carry and is left out: links, empty folders.
    public let leftOut: [String]
    /// Whether a PIN is asked for.
    public let asksForPin: Bool

    private let server: HTTPServer
    private let prepared: PreparedSend
    private let files: [LocalSendUpload.File]
    private let session: Mutex<LocalSendLinkSession>

    private init(
        server: HTTPServer, requestedPort: UInt16, prepared: PreparedSend, files: [LocalSendUpload.File],
        leftOut: [String], session: LocalSendLinkSession, urls: [String], asksForPin: Bool
    ) {
        self.server = server
        port = server.port
        self.requestedPort = requestedPort
        self.prepared = prepared
        self.files = files
        self.leftOut = leftOut
        self.session = Mutex(session)
        self.urls = urls
        self.asksForPin = asksForPin
        bytes = files.reduce(0) { $0 + $1.size }
    }

    /// Hashes the files of `prepared` and listens on `port` (any free port when it is taken; 0: any).
    ///
    /// - Parameters:
    ///   - alias: the name the page and `prepare-download` give as the sender.
    ///   - pin: the PIN asked for before the files are shown, if any.
    public static func open(
        _ prepared: PreparedSend, alias: String, identity: LocalSendIdentity, pin: String?, port: UInt16
    ) async throws(LocalSendError) -> LocalSendLink {
        try await BlockingWork.run("share.link-open") { () throws(LocalSendError) -> LocalSendLink in
            let (files, leftOut) = try LocalSendUpload.files(of: prepared)
            guard !files.isEmpty else {
                throw LocalSendError("there is no file to serve: a link carries files only (not links or empty folders)")
            }
            let server: HTTPServer
            do throws(TransportError) {
                server = try HTTPServer(port: port, tls: nil)
            } catch .cannotListen(_, let code) where code == EADDRINUSE && port != 0 {
                do {
                    server = try HTTPServer(port: 0, tls: nil)
                } catch {
                    throw LocalSendError("cannot serve the link: \(error)")
                }
            } catch {
                throw LocalSendError("cannot serve the link on port \(port): \(error)")
            }
            let token = Self.token()
            let device = LocalSendDevice(
                alias: alias, deviceModel: "Linux", deviceType: "desktop", fingerprint: identity.fingerprint,
                port: server.port, https: false, download: true
            ).json
            let described = files.map { file in
                LocalSendLinkFile(id: file.id, fileName: file.name, size: file.size, fileType: file.fileType, sha256: file.sha256)
            }
            let session = LocalSendLinkSession(token: token, files: described, alias: alias, device: device, pin: pin)
            let urls = Self.addresses().map { "http://\($0):\(server.port)/?session=\(token)" }
            return LocalSendLink(
                server: server, requestedPort: port, prepared: prepared, files: files, leftOut: leftOut, session: session,
                urls: urls.isEmpty ? ["http://127.0.0.1:\(server.port)/?session=\(token)"] : urls,
                asksForPin: pin.map { !$0.isEmpty } ?? false)
        }
    }

    /// Serves until every file was downloaded whole once, `timeout` passed, `cancellation` was
    /// cancelled, or a file changed; tells `events` what happens on the way.
    public func serve(
        timeout: Duration, cancellation: SendCancellation, events: @escaping @Sendable (LocalSendLinkEvent) -> Void
    ) async -> LocalSendLinkReport {
        await BlockingWork.run("share.link") { () -> LocalSendLinkReport in
            self.serveBlocking(timeout: timeout, cancellation: cancellation, events: events)
        }
    }

    private func serveBlocking(
        timeout: Duration, cancellation: SendCancellation, events: @escaping @Sendable (LocalSendLinkEvent) -> Void
    ) -> LocalSendLinkReport {
        let started = ContinuousClock.now
        let deadline = started + timeout
        let finished = WakeSignal()
        let failure = Mutex<String?>(nil)
        let downloads = Atomic<Int>(0)
        let lockedOut = Mutex<Set<String>>([])
        BlockingWork.start("share.link-server") { [self] in
            server.run { exchange in
                self.handle(
                    exchange, events: events,
                    downloaded: { id, address in
                        downloads.add(1, ordering: .relaxed)
                        let (done, complete) = self.session.withLock { session in
                            session.downloadedWhole(id)
                            return (session.downloaded.count, session.isComplete)
                        }
                        let name = self.files.first { $0.id == id }?.name ?? id
                        events(.downloaded(file: name, by: address, filesDone: done, filesTotal: self.files.count))
                        if complete { finished.signal() }
                    },
                    failed: { message in
                        failure.withLock { $0 = $0 ?? message }
                        finished.signal()
                    },
                    locked: { address in
                        if lockedOut.withLock({ $0.insert(address).inserted }) { events(.lockedOut(address)) }
                    })
            }
        }
        var ending: LocalSendLinkReport.Ending
        while true {
            if finished.wait(timeout: .milliseconds(100)) {
                ending = failure.withLock { $0 }.map { .failed($0) } ?? .complete
                break
            }
            if cancellation.isCancelled {
                ending = .cancelled
                break
            }
            if ContinuousClock.now >= deadline {
                ending = .timedOut
                break
            }
        }
        server.stop()
        server.waitForConnections()
        let downloaded = session.withLock { $0.downloaded }
        return LocalSendLinkReport(
            ending: ending, downloadedFiles: files.filter { downloaded.contains($0.id) }.map(\.name), fileCount: files.count,
            downloads: downloads.load(ordering: .relaxed), seconds: (ContinuousClock.now - started).seconds)
    }

    /// Answers one request on its connection's thread.
    private func handle(
        _ exchange: HTTPExchange, events: @Sendable (LocalSendLinkEvent) -> Void,
        downloaded: (String, String) -> Void, failed: (String) -> Void, locked: (String) -> Void
    ) {
        let address = exchange.peerAddress
        let answer = session.withLock {
            $0.answer(method: exchange.request.method, target: exchange.request.target, from: address, now: .now)
        }
        switch answer {
        case .page(let status, let html):
            if status == 429 { locked(address) }
            exchange.respond(
                status,
                headers: [
                    ("Content-Type", "text/html; charset=utf-8"), ("X-Content-Type-Options", "nosniff"),
                    ("Referrer-Policy", "no-referrer"),
                    ("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'"),
                ],
                body: Array(html.utf8))
        case .json(let body):
            exchange.respond(200, json: body)
        case .file(let described):
            guard let file = files.first(where: { $0.id == described.id }) else { return }
            let headers = [
                ("Content-Type", file.fileType), ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
                ("Content-Disposition", "attachment; filename*=UTF-8''" + LocalSendLinkPage.queryValue(described.baseName)),
            ]
            switch file.source {
            case .bytes(let bytes):
                exchange.respond(200, headers: headers, body: bytes)
                downloaded(file.id, address)
            case .file(let index):
                switch stream(file, index: index, headers: headers, to: exchange) {
                case .whole: downloaded(file.id, address)
                case .stopped: events(.stopped(file: file.name, by: address))
                case .changed(let message): failed(message)
                }
            }
        }
    }

    private enum Streamed {
        case whole
        case stopped
        case changed(String)
    }

    /// Streams file `index` of the send. Its last piece leaves only after the file proved to be
    /// what was offered (its size, and the SHA-256 `prepare-download` gave): a file that changed
    /// is cut short, so no browser keeps it as if whole.
    private func stream(_ file: LocalSendUpload.File, index: Int, headers: [(String, String)], to exchange: HTTPExchange)
        -> Streamed
    {
        let changed = "'\(file.name)' changed while it was being served, so it was not handed out whole; share it again"
        let opened: SourceFile
        switch SourceFile.open(prepared, index: index, midway: true) {
        case .success(let file): opened = file
        case .failure(let failure):
            // The browser learns nothing of this machine's paths; the user here gets the reason.
            exchange.respond(500, text: "the file cannot be served as it was offered")
            return .changed(failure.message.contains("changed") ? changed : failure.message)
        }
        var problem: String?
        do {
            try exchange.respondStreaming(200, headers: headers, length: file.size) { write in
                var hasher = SHA256()
                var remaining = file.size
                var held: [UInt8] = []
                while remaining > 0 {
                    let chunk: [UInt8]
                    switch opened.read(Int(min(remaining, UInt64(FileReader.chunkSize)))) {
                    case .success(let bytes): chunk = bytes
                    case .failure(let failure):
                        problem = failure.message.contains("shorter") ? changed : failure.message
                        return
                    }
                    hasher.update(chunk)
                    if !held.isEmpty { try held.withUnsafeBytes { try write($0) } }
                    held = chunk
                    remaining -= UInt64(chunk.count)
                }
                guard opened.changed() == nil, Hex.encode(hasher.finalize()) == file.sha256 else {
                    problem = changed
                    return
                }
                if !held.isEmpty { try held.withUnsafeBytes { try write($0) } }
            }
        } catch {
            return problem.map { .changed($0) } ?? .stopped
        }
        return problem.map { .changed($0) } ?? .whole
    }

    /// 16 random bytes in base64url without padding: 22 characters, 128 bits.
    static func token() -> String {
        Data(SecureRandom.bytes(16)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// This machine's IPv4 addresses (not loopback, not link-local), the one the default route
    /// leaves from first.
    static func addresses() -> [String] {
        let all = LocalAddresses.routable().filter { $0.bytes.count == 4 }.map(\.text)
        guard let primary = defaultRouteAddress(), all.contains(primary) else { return all }
        return [primary] + all.filter { $0 != primary }
    }

    /// The source address of the default route: what a UDP socket "connected" to a documentation
    /// address gets (no packet is sent); nil without a default route.
    private static func defaultRouteAddress() -> String? {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = in_port_t(9).bigEndian
        target.sin_addr.s_addr = inet_addr("192.0.2.1")
        let connected = withUnsafePointer(to: &target) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return nil }
        var local = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { return nil }
        return IPAddressText.format(withUnsafeBytes(of: local.sin_addr) { Array($0) })
    }
}
