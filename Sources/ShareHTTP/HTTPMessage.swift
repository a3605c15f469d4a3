/// One parsed HTTP message: a response's status, or a request's method and target, its headers and
/// (when kept) its body.
public struct HTTPMessage: Sendable {
    /// A response's status code (0 for a request).
    public var status = 0
    /// A request's method (`GET`, `POST`, ...; empty for a response).
    public var method = ""
    /// A request's target (`/api/localsend/v2/upload?sessionId=...`; empty for a response).
    public var target = ""
    /// The headers in order, names lower-cased.
    public var headers: [(name: String, value: String)] = []
    /// `Content-Length`, when the message has one.
    public var contentLength: UInt64?
    /// Whether the connection may carry another message after this one.
    public var keepAlive = false
    /// The body, when the parser keeps it (no ``HTTPMessageParser/bodySink``).
    public var body: [UInt8] = []
    /// Body bytes seen so far (kept or given to the sink).
    public var bodyBytesSeen: UInt64 = 0

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name == wanted }?.value
    }

    /// The name of http-parser's method number (the few share serves; others by number).
    static func methodName(_ number: UInt32) -> String {
        switch number {
        case 0: "DELETE"
        case 1: "GET"
        case 2: "HEAD"
        case 3: "POST"
        case 4: "PUT"
        case 6: "OPTIONS"
        default: "METHOD-\(number)"
        }
    }
}
