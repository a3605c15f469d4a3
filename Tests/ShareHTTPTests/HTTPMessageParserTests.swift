import ShareHTTP
import Testing

/// HTTP/1.1 messages through http-parser: whole or in pieces, and what is refused.
@Suite struct HTTPMessageParserTests {
    func parse(_ text: String, _ kind: HTTPMessageParser.Kind, pieces: Int = 1, limits: HTTPLimits = HTTPLimits())
        throws -> HTTPMessage?
    {
        let parser = HTTPMessageParser(kind, limits: limits)
        let bytes = Array(text.utf8)
        let size = max(1, bytes.count / pieces)
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + size)
            let done = try bytes[start..<end].withUnsafeBytes { piece in try parser.feed(piece) }
            if let done { return done }
            start = end
        }
        return try parser.finish()
    }

    @Test func aResponseWithABodyIsReadWholeOrByteByByte() throws {
        let text = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n{\"sessionId\":1}"
        for pieces in [1, 7, text.utf8.count] {
            let message = try #require(try parse(text, .response, pieces: pieces))
            #expect(message.status == 200)
            #expect(message.header("content-type") == "application/json")
            #expect(message.contentLength == 15)
            #expect(String(decoding: message.body, as: UTF8.self) == "{\"sessionId\":1}")
        }
    }

    @Test func aRequestHasItsMethodAndTarget() throws {
        let message = try #require(
            try parse("POST /api/localsend/v2/upload?sessionId=a&fileId=b HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", .request))
        #expect(message.method == "POST")
        #expect(message.target == "/api/localsend/v2/upload?sessionId=a&fileId=b")
        #expect(message.body.isEmpty)
    }

    @Test func aCutMessageIsNotComplete() throws {
        #expect(try parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", .response) == nil)
    }

    @Test func whatIsNotHTTPOrTooLongIsRefused() {
        #expect(throws: HTTPParseError.self) { try parse("SSH-2.0-OpenSSH\r\n\r\n", .response) }
        var small = HTTPLimits()
        small.headerBytes = 64
        #expect(throws: HTTPParseError.headersTooLong(limit: 64)) {
            try parse("HTTP/1.1 200 OK\r\nX-Long: \(String(repeating: "a", count: 100))\r\n\r\n", .response, limits: small)
        }
        small = HTTPLimits()
        small.bodyBytes = 4
        #expect(throws: HTTPParseError.bodyTooLong(limit: 4), "a declared length over the limit is refused before the body") {
            try parse("HTTP/1.1 200 OK\r\nContent-Length: 5000000000\r\n\r\n", .response, limits: small)
        }
    }

    @Test func aBodyCanGoToASinkAsItArrives() throws {
        let parser = HTTPMessageParser(.request)
        var received: [UInt8] = []
        parser.bodySink = { piece in
            received += piece
            return true
        }
        let text = "POST /u HTTP/1.1\r\nContent-Length: 6\r\n\r\nabcdef"
        let message = try Array(text.utf8).withUnsafeBytes { bytes in try parser.feed(bytes) }
        #expect(message?.body.isEmpty == true)
        #expect(message?.bodyBytesSeen == 6)
        #expect(received == Array("abcdef".utf8))
    }
}
