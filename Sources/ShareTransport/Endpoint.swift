/// A network address to connect to: a host (name, IPv4, or IPv6 with an optional `%scope`) and a
/// TCP port.
public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
    /// Host name or literal address (IPv6 without brackets; a link-local one may carry `%interface`).
    public var host: String
    /// TCP port.
    public var port: UInt16

    /// Creates an endpoint.
    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT`, `[IPV6]:PORT` or `[IPV6%SCOPE]:PORT`; nil when `text` has no such shape.
    public init?(parsing text: String) {
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":"), let port = UInt16(rest.dropFirst()), port > 0, !host.isEmpty else { return nil }
            self.init(host: host, port: port)
            return
        }
        guard let colon = text.lastIndex(of: ":") else { return nil }
        let host = String(text[..<colon])
        guard !host.isEmpty, !host.contains(":"), let port = UInt16(text[text.index(after: colon)...]), port > 0 else {
            return nil
        }
        self.init(host: host, port: port)
    }

    /// `host:port`, with brackets around IPv6 addresses.
    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
