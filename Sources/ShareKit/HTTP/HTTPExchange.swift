import Foundation
import ShareHTTP
import ShareTransport

/// One HTTP request a server received and its answer: the request's headers are read (bounded by
/// ``HTTPLimits``), its body is read on demand (kept up to a limit, or streamed to a sink), and the
/// answer always closes the connection. Used by the connection's own thread.
final class HTTPExchange {
    /// The request: method, target and headers (its body is read with ``readBody(limit:)`` or
    /// ``streamBody(_:)``).
    let request: HTTPMessage
    /// The peer's address, without its port.
    let peerAddress: String
    /// The target's path, without the query.
    let path: String
    /// Whether an answer was sent.
    private(set) var answered = false
    private let stream: any ByteStream
    private let parser: HTTPMessageParser
    private let query: [String: String]
    /// Body bytes that arrived with the headers.
    private var early: [UInt8]
    private var bodyDone = false

    /// How long a body's reads may wait for the peer.
    static let bodyReadTimeout: Duration = .seconds(30)

    private init(stream: any ByteStream, parser: HTTPMessageParser, early: [UInt8], complete: Bool) {
        self.stream = stream
        self.parser = parser
        self.early = early
        self.bodyDone = complete
        request = parser.headers
        peerAddress = ReceiveGate.host(of: stream.endpoint)
        let components = URLComponents(string: request.target)
        path = components?.percentEncodedPath.removingPercentEncoding ?? request.target
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] where query[item.name] == nil { query[item.name] = item.value ?? "" }
        self.query = query
    }

    /// Reads a request's headers from `stream` by `deadline`; nil (after answering 400 or 431 when the
    /// peer sent something that is not an acceptable request) when there is none.
    static func read(from stream: any ByteStream, deadline: ContinuousClock.Instant, limits: HTTPLimits = HTTPLimits()) -> HTTPExchange? {
        let parser = HTTPMessageParser(.request, limits: limits)
        var early: [UInt8] = []
        parser.bodySink = { bytes in
            early += bytes
            return true
        }
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while !parser.hasHeaders {
            let left = deadline - .now
            guard left > .zero else { return nil }
            stream.setTimeouts(receive: left, send: left)
            do {
                let count = try buffer.withUnsafeMutableBytes { try stream.read(into: $0) }
                if count == 0 { return nil }
                let message = try buffer.withUnsafeBytes { try parser.feed(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                if message != nil || parser.hasHeaders {
                    return HTTPExchange(stream: stream, parser: parser, early: early, complete: message != nil)
                }
            } catch let error as HTTPParseError {
                let status = if case .headersTooLong = error { 431 } else { 400 }
                respondOnce(on: stream, status: status, text: error.description)
                return nil
            } catch {
                return nil
            }
        }
        return nil
    }

    /// Waits, on another thread, until the peer hangs up (after its request it sends nothing more
    /// until it closes) or `done` is signalled; whether it hung up.
    func peerHangsUp(before done: WakeSignal) -> Bool {
        guard bodyDone || bodyLength == 0 else { return false }
        return stream.waitReadable(orWake: [done], timeout: nil) == .readable
    }

    /// The value of query parameter `name` (percent-decoded), if the target has it.
    func query(_ name: String) -> String? { query[name] }

    /// The request's declared body length (0 without one).
    var bodyLength: UInt64 { request.contentLength ?? 0 }

    /// Reads the whole body, at most `limit` bytes (a longer declared body is refused before it is read),
    /// all of it by `deadline` when one is given.
    func readBody(limit: Int, by deadline: ContinuousClock.Instant? = nil) throws(HTTPExchangeError) -> [UInt8] {
        guard bodyLength <= UInt64(limit) else { throw .bodyTooLong(limit: limit) }
        var body: [UInt8] = []
        try streamBody(by: deadline) { bytes in
            body += bytes
            return true
        }
        return body
    }

    /// Hands the body to `sink` as it arrives (`false` from the sink stops reading); returns when the
    /// declared length has arrived.
    ///
    /// - Throws: ``HTTPExchangeError`` when the peer stops short of its declared length, goes silent
    ///   for ``bodyReadTimeout``, or the sink stops.
    /// With a `deadline`, the whole body must have arrived by then (``HTTPExchangeError/tooSlow(seconds:)``).
    @discardableResult
    func streamBody(
        by deadline: ContinuousClock.Instant? = nil, _ sink: @escaping (UnsafeRawBufferPointer) -> Bool
    ) throws(HTTPExchangeError) -> UInt64 {
        let started = ContinuousClock.now
        if request.header("expect")?.lowercased() == "100-continue" && !bodyDone {
            try? Array("HTTP/1.1 100 Continue\r\n\r\n".utf8).withUnsafeBytes { try stream.write($0) }
        }
        if !early.isEmpty {
            let bytes = early
            early = []
            guard bytes.withUnsafeBytes({ sink($0) }) else { throw .stopped }
        }
        var stopped = false
        parser.bodySink = { bytes in
            guard sink(bytes) else {
                stopped = true
                return false
            }
            return true
        }
        var buffer = [UInt8](repeating: 0, count: 256 << 10)
        while !bodyDone {
            var wait = Self.bodyReadTimeout
            if let deadline {
                let left = deadline - .now
                guard left > .zero else { throw .tooSlow(seconds: (deadline - started).components.seconds) }
                wait = min(wait, left)
            }
            stream.setTimeouts(receive: wait, send: Self.bodyReadTimeout)
            do {
                let count = try buffer.withUnsafeMutableBytes { try stream.read(into: $0) }
                if count == 0 {
                    if try parser.finish() == nil { throw HTTPExchangeError.cutShort(received: parser.headers.bodyBytesSeen) }
                    break
                }
                if try buffer.withUnsafeBytes({ try parser.feed(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }) != nil {
                    bodyDone = true
                }
            } catch let error as HTTPExchangeError {
                throw error
            } catch HTTPParseError.stoppedBySink where stopped {
                throw .stopped
            } catch let error as HTTPParseError {
                throw .malformed(error.description)
            } catch let error as TransportError {
                if case .timedOut = error, let deadline, ContinuousClock.now >= deadline {
                    throw .tooSlow(seconds: (deadline - started).components.seconds)
                }
                if case .timedOut = error { throw .silent(seconds: Self.bodyReadTimeout.components.seconds) }
                throw .cutShort(received: parser.headers.bodyBytesSeen)
            } catch {
                throw .cutShort(received: parser.headers.bodyBytesSeen)
            }
        }
        return parser.headers.bodyBytesSeen
    }

    /// After an answer given before the body was read (a refusal), reads and drops what the peer still
    /// sends, up to `limit` bytes or for `duration`: closing at once would reset the connection while
    /// the peer is still sending, and the peer would lose the answer that says why.
    func discardUnreadBody(upTo limit: Int = 16 << 20, within duration: Duration = .seconds(2)) {
        guard answered, !bodyDone, request.contentLength ?? 0 > 0 else { return }
        let deadline = ContinuousClock.now + duration
        var dropped = 0
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while dropped < limit {
            let left = deadline - .now
            guard left > .zero else { return }
            stream.setTimeouts(receive: left, send: left)
            guard let count = try? buffer.withUnsafeMutableBytes({ try stream.read(into: $0) }), count > 0 else { return }
            dropped += count
        }
    }

    /// Answers with `status`, `headers` and `body`, and closes the connection after it.
    func respond(_ status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        guard !answered else { return }
        answered = true
        try? Self.head(status, headers: headers, length: UInt64(body.count)).withUnsafeBytes { try stream.write($0) }
        if !body.isEmpty { try? body.withUnsafeBytes { try stream.write($0) } }
    }

    /// Answers with a JSON body.
    func respond(_ status: Int, json: [UInt8]) {
        respond(status, headers: [("Content-Type", "application/json")], body: json)
    }

    /// Answers with a plain-text sentence.
    func respond(_ status: Int, text: String) {
        respond(status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array((text + "\n").utf8))
    }

    /// Answers with `status` and `headers`, then `length` bytes that `body` writes through the function it
    /// is given (which throws when the peer went away).
    func respondStreaming(
        _ status: Int, headers: [(String, String)], length: UInt64,
        body: ((UnsafeRawBufferPointer) throws(TransportError) -> Void) throws -> Void
    ) throws {
        guard !answered else { return }
        answered = true
        stream.setTimeouts(receive: Self.bodyReadTimeout, send: Self.bodyReadTimeout)
        try Self.head(status, headers: headers, length: length).withUnsafeBytes { try stream.write($0) }
        try body { bytes throws(TransportError) in try stream.write(bytes) }
    }

    private static func respondOnce(on stream: any ByteStream, status: Int, text: String) {
        let body = Array((text + "\n").utf8)
        let head = head(status, headers: [("Content-Type", "text/plain; charset=utf-8")], length: UInt64(body.count))
        try? (head + body).withUnsafeBytes { try stream.write($0) }
    }

    private static func head(_ status: Int, headers: [(String, String)], length: UInt64) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(reason(status))\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "Content-Length: \(length)\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n"
        return Array(text.utf8)
    }

    /// The reason phrase of the statuses share answers with.
    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 204: "No Content"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 507: "Insufficient Storage"
        default: status < 500 ? "Client Error" : "Server Error"
        }
    }
}
