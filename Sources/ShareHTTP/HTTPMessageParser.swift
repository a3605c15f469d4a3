internal import CShareHTTPParser

/// Parses one HTTP/1.1 message (a response for a client, a request for a server) with Node's
/// http-parser, bytes in as they arrive; owns the parser.
///
/// Header bytes and a kept body are bounded (``HTTPLimits``) before anything grows; a body can
/// instead go to a sink as it arrives (an upload streamed to disk).
public final class HTTPMessageParser {
    /// What kind of message is parsed.
    public enum Kind: Sendable {
        case request
        case response
    }

    private let parser: UnsafeMutablePointer<http_parser>
    private var settings = http_parser_settings()
    private let limits: HTTPLimits
    private let kind: Kind
    private var message = HTTPMessage()
    private var headerBytes = 0
    private var field: [UInt8] = []
    private var value: [UInt8] = []
    private var inValue = false
    private var url: [UInt8] = []
    private var problem: HTTPParseError?
    private var complete = false
    private var headersDone = false
    /// Takes the body as it arrives instead of keeping it; returns false to stop (the message then
    /// fails with ``HTTPParseError/stoppedBySink``).
    public var bodySink: ((UnsafeRawBufferPointer) -> Bool)?

    /// A parser for one message of `kind`.
    public init(_ kind: Kind, limits: HTTPLimits = HTTPLimits()) {
        self.kind = kind
        self.limits = limits
        parser = .allocate(capacity: 1)
        httpParser.http_parser_init(parser, kind == .request ? HTTP_REQUEST : HTTP_RESPONSE)
        httpParser.http_parser_settings_init(&settings)
        settings.on_url = { parser, at, length in HTTPMessageParser.of(parser).url(at, length) }
        settings.on_header_field = { parser, at, length in HTTPMessageParser.of(parser).headerField(at, length) }
        settings.on_header_value = { parser, at, length in HTTPMessageParser.of(parser).headerValue(at, length) }
        settings.on_headers_complete = { parser in HTTPMessageParser.of(parser).headersComplete() }
        settings.on_body = { parser, at, length in HTTPMessageParser.of(parser).body(at, length) }
        settings.on_message_complete = { parser in HTTPMessageParser.of(parser).messageComplete() }
    }

    deinit { parser.deallocate() }

    /// Whether the headers have all arrived (``headers`` is then set).
    public var hasHeaders: Bool { headersDone }
    /// The message so far: its start line and headers once ``hasHeaders``, and the kept body.
    public var headers: HTTPMessage { message }

    /// Parses `bytes`; returns the message once it is complete (later bytes are not read).
    ///
    /// - Throws: ``HTTPParseError`` for a malformed message or one over the limits.
    public func feed(_ bytes: UnsafeRawBufferPointer) throws(HTTPParseError) -> HTTPMessage? {
        if complete { return message }
        if let problem { throw problem }
        parser.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        let parsed = withUnsafePointer(to: &settings) { settings in
            httpParser.http_parser_execute(
                parser, settings, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count)
        }
        parser.pointee.data = nil
        if let problem { throw problem }
        if complete { return message }
        if CShareHTTPParser_failed(parser) != 0 || parsed != bytes.count {
            let description = httpParser.http_errno_description(http_errno(UInt32(CShareHTTPParser_errno(parser))))
            throw .malformed(description.map { String(cString: $0) } ?? "error \(CShareHTTPParser_errno(parser))")
        }
        return nil
    }

    /// The end of the connection: completes a message whose body runs to the end (a response
    /// without a length); nil when the message was cut short.
    public func finish() throws(HTTPParseError) -> HTTPMessage? {
        if complete { return message }
        parser.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        _ = withUnsafePointer(to: &settings) { httpParser.http_parser_execute(parser, $0, nil, 0) }
        parser.pointee.data = nil
        if let problem { throw problem }
        return complete ? message : nil
    }

    private static func of(_ parser: UnsafeMutablePointer<http_parser>?) -> HTTPMessageParser {
        Unmanaged<HTTPMessageParser>.fromOpaque(parser!.pointee.data!).takeUnretainedValue()
    }

    private func fail(_ error: HTTPParseError) -> Int32 {
        problem = error
        return 1
    }

    private func countHeader(_ length: Int) -> Bool {
        headerBytes += length
        return headerBytes <= limits.headerBytes
    }

    private func url(_ at: UnsafePointer<CChar>?, _ length: Int) -> Int32 {
        guard countHeader(length), let at else { return fail(.headersTooLong(limit: limits.headerBytes)) }
        url += UnsafeRawBufferPointer(start: at, count: length)
        return 0
    }

    private func headerField(_ at: UnsafePointer<CChar>?, _ length: Int) -> Int32 {
        guard countHeader(length), let at else { return fail(.headersTooLong(limit: limits.headerBytes)) }
        if inValue {
            endHeader()
            if message.headers.count >= limits.headerCount { return fail(.headersTooLong(limit: limits.headerBytes)) }
        }
        field += UnsafeRawBufferPointer(start: at, count: length)
        return 0
    }

    private func headerValue(_ at: UnsafePointer<CChar>?, _ length: Int) -> Int32 {
        guard countHeader(length), let at else { return fail(.headersTooLong(limit: limits.headerBytes)) }
        inValue = true
        value += UnsafeRawBufferPointer(start: at, count: length)
        return 0
    }

    private func endHeader() {
        message.headers.append(
            (name: String(decoding: field, as: UTF8.self).lowercased(), value: String(decoding: value, as: UTF8.self)))
        field = []
        value = []
        inValue = false
    }

    private func headersComplete() -> Int32 {
        if inValue { endHeader() }
        if kind == .response {
            message.status = Int(CShareHTTPParser_status(parser))
        } else {
            message.method = HTTPMessage.methodName(CShareHTTPParser_method(parser))
            message.target = String(decoding: url, as: UTF8.self)
        }
        let length = parser.pointee.content_length
        if length != UInt64.max { message.contentLength = length }
        if bodySink == nil, let declared = message.contentLength, declared > UInt64(limits.bodyBytes) {
            return fail(.bodyTooLong(limit: limits.bodyBytes))
        }
        message.keepAlive = httpParser.http_should_keep_alive(parser) != 0
        headersDone = true
        return 0
    }

    private func body(_ at: UnsafePointer<CChar>?, _ length: Int) -> Int32 {
        guard let at else { return 0 }
        let bytes = UnsafeRawBufferPointer(start: at, count: length)
        message.bodyBytesSeen += UInt64(length)
        if let bodySink { return bodySink(bytes) ? 0 : fail(.stoppedBySink) }
        guard message.body.count + length <= limits.bodyBytes else { return fail(.bodyTooLong(limit: limits.bodyBytes)) }
        message.body += bytes
        return 0
    }

    private func messageComplete() -> Int32 {
        complete = true
        // Pause: bytes after this message belong to the next one (or are not read).
        return 0
    }
}
