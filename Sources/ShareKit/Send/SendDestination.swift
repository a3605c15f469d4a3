import ShareTransport

#if canImport(Glibc)
import Glibc
#endif

/// Where one `--to` target (or the peer of `share trust verify`) goes: where to connect and which
/// key must answer there. A `HOST:PORT` is taken as it is (any key; the trust store judges it),
/// anything else is looked up through Avahi as a name or a fingerprint prefix
/// (``resolveEach(_:node:)``).
///
/// A verified peer's name means that peer's key, wherever it is published and under whatever name
/// it is published now (`desk #2` after a collision): another machine that took the name is never
/// sent to in its place.
public struct SendDestination: Sendable {
    /// The target exactly as the user gave it.
    public var target: String
    /// How to name it in messages.
    public var label: String
    /// Its addresses, best first.
    var endpoints: [Endpoint]
    /// The key that must answer there (nil: any; reached by address).
    public var expectedKey: ExpectedKey?
    /// Whether the user gave an address rather than a name or fingerprint.
    public var isAddress: Bool
    /// Set when it was seen in a wide-area domain: what a connection confirms (or forgets).
    var wideArea: WideAreaTarget? = nil
    /// The name it is published under now, when it was found by discovery.
    public var peerName: String? = nil

    /// Its best address as `HOST:PORT` (`[IPV6]:PORT`), before any connection.
    public var address: String? { endpoints.first?.description }

    /// `HOST:PORT` and `[IPV6]:PORT` are addresses, and so is an IP address alone (with the default
    /// port); anything else is looked up as a peer. A host of the local network (`desk.local`, with or
    /// without a port) is not an address here: it is found through Avahi (``localHost(_:)``).
    static func address(_ text: String) -> Endpoint? {
        if let literal = ipLiteral(text) { return Endpoint(host: literal, port: ReceiverConfiguration.defaultPort) }
        guard let endpoint = Endpoint(parsing: text), text.hasPrefix("[") || text.split(separator: ":").count == 2,
            localHost(text) == nil
        else {
            return nil
        }
        return endpoint
    }

    /// `192.168.1.20`, `fe80::1%eth0`, `[2001:db8::1]`: an IP address without a port.
    static func ipLiteral(_ text: String) -> String? {
        var host = Substring(text)
        if host.hasPrefix("[") && host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        let address = host.split(separator: "%", maxSplits: 1).first.map(String.init) ?? ""
        var buffer = [UInt8](repeating: 0, count: 16)
        guard inet_pton(AF_INET, address, &buffer) == 1 || inet_pton(AF_INET6, address, &buffer) == 1 else { return nil }
        return String(host)
    }

    /// `desk.local` or `desk.local:47321`: a host of the local network (as `share peers` shows it),
    /// its name folded and without a final dot, and the port if one was given.
    static func localHost(_ text: String) -> (host: String, port: UInt16?)? {
        var host = Substring(text)
        var port: UInt16?
        if let colon = host.lastIndex(of: ":"), let number = UInt16(host[host.index(after: colon)...]), number > 0 {
            port = number
            host = host[..<colon]
        }
        if host.hasSuffix(".") { host = host.dropLast() }
        let folded = host.lowercased()
        guard folded.hasSuffix(".local"), folded.count > ".local".count, !folded.contains(":") else { return nil }
        return (folded, port)
    }
}
