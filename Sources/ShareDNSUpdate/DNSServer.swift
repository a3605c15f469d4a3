internal import CShareLDNS
import Glibc
public import ShareDNS

/// One DNS server spoken to directly, through libldns: signed dynamic updates (RFC 2136, signed
/// with TSIG, RFC 8945) and plain questions, over UDP with a retry over TCP when an answer is
/// truncated.
///
/// Not thread-safe: use one from one thread at a time. Each call builds its own libldns objects.
public final class DNSServer {
    /// The server's addresses, tried in order.
    public let addresses: [String]
    /// Its port.
    public let port: UInt16
    private let key: TSIGKey?
    private let timeoutSeconds: Int
    private let tries: Int

    /// A server at one or more IPv4 or IPv6 addresses (tried in order until one answers).
    /// - Parameters:
    ///   - key: the key that signs updates (and whose signature answers must carry).
    ///   - timeoutSeconds: how long to wait for one answer; `tries` answers are waited for at most.
    /// - Throws: ``DNSServerError/badAddress(_:)`` when an address is not an IP address.
    public init(addresses: [String], port: UInt16 = 53, key: TSIGKey?, timeoutSeconds: Int = 2, tries: Int = 2)
        throws(DNSServerError)
    {
        guard !addresses.isEmpty else { throw .badAddress("") }
        for address in addresses where LDNSResolver.addressData(address) == nil { throw .badAddress(address) }
        self.addresses = addresses
        self.port = port
        self.key = key
        self.timeoutSeconds = max(1, timeoutSeconds)
        self.tries = max(1, tries)
    }

    /// The server as text for messages (`10.0.0.53`, `[fd00::53]:5353`).
    public var label: String {
        let address = addresses[0]
        let host = address.contains(":") ? "[\(address)]" : address
        return port == 53 ? address : "\(host):\(port)"
    }

    /// Sends a signed update and returns the server's response code (NOERROR: applied).
    /// - Throws: ``DNSServerError`` when the server cannot be reached, or its answer is unsigned or
    ///   wrongly signed (it did not accept the key).
    public func send(_ update: DNSUpdate) throws(DNSServerError) -> DNSResponseCode {
        let resolver = try LDNSResolver(
            addresses: addresses, port: port, key: key, timeoutSeconds: timeoutSeconds, tries: tries)
        let packet = try LDNSPacket(wire: update.message(id: UInt16.random(in: 0...UInt16.max)).wire)
        if key != nil {
            let status = ldns.ldns_update_pkt_tsig_add(packet.pointer, resolver.pointer)
            guard status == LDNS_STATUS_OK else { throw .cannotSign(LDNSResolver.text(status)) }
        }
        let (status, answer) = resolver.send(packet)
        if status == LDNS_STATUS_CRYPTO_TSIG_BOGUS || status == LDNS_STATUS_CRYPTO_TSIG_ERR {
            throw .keyRejected(server: label, key: key?.name.presentation ?? "")
        }
        guard status == LDNS_STATUS_OK, let answer else {
            throw .unreachable(server: label, reason: LDNSResolver.text(status))
        }
        return DNSResponseCode(rawValue: UInt16(ldns.ldns_pkt_get_rcode(answer.pointer).rawValue))
    }

    /// Asks the server (unsigned, no recursion) for `type` records of `name`; returns the whole answer.
    /// - Throws: ``DNSServerError`` when it cannot be reached or answers garbage.
    public func query(_ name: DNSName, _ type: DNSRecordType) throws(DNSServerError) -> DNSMessage {
        let resolver = try LDNSResolver(
            addresses: addresses, port: port, key: nil, timeoutSeconds: timeoutSeconds, tries: tries)
        var query = DNSMessage.query(name, type, id: UInt16.random(in: 0...UInt16.max))
        query.recursionDesired = false
        let packet = try LDNSPacket(wire: query.wire)
        let (status, answer) = resolver.send(packet)
        guard status == LDNS_STATUS_OK, let answer else {
            throw .unreachable(server: label, reason: LDNSResolver.text(status))
        }
        do {
            return try DNSMessage(parsing: try answer.wire())
        } catch {
            throw .malformed(server: label, problem: "\(error)")
        }
    }
}

/// Why a DNS server could not be used.
public enum DNSServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text is not an IPv4 or IPv6 address.
    case badAddress(String)
    /// No answer, or the network failed.
    case unreachable(server: String, reason: String)
    /// The answer was not signed with the key, or the server refused the signature (BADKEY, BADSIG).
    case keyRejected(server: String, key: String)
    /// The update could not be signed.
    case cannotSign(String)
    /// An answer that does not parse.
    case malformed(server: String, problem: String)

    public var description: String {
        switch self {
        case .badAddress(let text): "'\(text)' is not an IPv4 or IPv6 address"
        case .unreachable(let server, let reason): "no answer from the DNS server \(server) (\(reason))"
        case .keyRejected(let server, let key):
            "the DNS server \(server) did not accept the key '\(key)': it does not know a key of that name, or "
                + "knows it with another secret or algorithm. Check the key file against the server's configuration"
        case .cannotSign(let reason): "cannot sign the DNS update: \(reason)"
        case .malformed(let server, let problem): "the DNS server \(server) sent a malformed answer: \(problem)"
        }
    }
}

/// Owns an `ldns_resolver` that talks to one server.
private final class LDNSResolver {
    let pointer: UnsafeMutablePointer<ldns_resolver>

    init(addresses: [String], port: UInt16, key: TSIGKey?, timeoutSeconds: Int, tries: Int) throws(DNSServerError) {
        guard let pointer = ldns.ldns_resolver_new() else {
            throw .unreachable(server: addresses.first ?? "", reason: "out of memory")
        }
        self.pointer = pointer
        for address in addresses {
            guard let (type, text) = Self.addressData(address), let server = ldns.ldns_rdf_new_frm_str(type, text)
            else {
                throw .badAddress(address)
            }
            defer { ldns.ldns_rdf_deep_free(server) }
            guard ldns.ldns_resolver_push_nameserver(pointer, server) == LDNS_STATUS_OK else {
                throw .unreachable(server: address, reason: "libldns refused the address")
            }
        }
        ldns.ldns_resolver_set_port(pointer, port)
        ldns.ldns_resolver_set_timeout(pointer, timeval(tv_sec: timeoutSeconds, tv_usec: 0))
        ldns.ldns_resolver_set_retry(pointer, UInt8(clamping: tries))
        ldns.ldns_resolver_set_retrans(pointer, UInt8(clamping: timeoutSeconds))
        ldns.ldns_resolver_set_fallback(pointer, 1)
        ldns.ldns_resolver_set_random(pointer, 0)
        ldns.ldns_resolver_set_recursive(pointer, 0)
        if let key {
            ldns.ldns_resolver_set_tsig_keyname(pointer, key.name.absolute)
            ldns.ldns_resolver_set_tsig_algorithm(pointer, key.algorithmName)
            ldns.ldns_resolver_set_tsig_keydata(pointer, key.secret)
        }
    }

    deinit {
        ldns.ldns_resolver_deep_free(pointer)
    }

    /// Sends `packet`; the status, and the answer when there is one.
    func send(_ packet: LDNSPacket) -> (ldns_status, LDNSPacket?) {
        var answer: UnsafeMutablePointer<ldns_pkt>?
        let status = ldns.ldns_resolver_send_pkt(&answer, pointer, packet.pointer)
        return (status, answer.map(LDNSPacket.init(owning:)))
    }

    /// The rdf type and text for an address, with any `%scope` removed.
    static func addressData(_ text: String) -> (ldns_rdf_type, String)? {
        let plain = String(text.prefix { $0 != "%" })
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, plain, &v4) == 1 { return (LDNS_RDF_TYPE_A, plain) }
        if inet_pton(AF_INET6, plain, &v6) == 1 { return (LDNS_RDF_TYPE_AAAA, plain) }
        return nil
    }

    static func text(_ status: ldns_status) -> String {
        ldns.ldns_get_errorstr_by_id(status).map { String(cString: $0) } ?? "libldns status \(status.rawValue)"
    }
}

/// Owns an `ldns_pkt`.
private final class LDNSPacket {
    let pointer: UnsafeMutablePointer<ldns_pkt>

    init(owning pointer: UnsafeMutablePointer<ldns_pkt>) {
        self.pointer = pointer
    }

    convenience init(wire: [UInt8]) throws(DNSServerError) {
        var packet: UnsafeMutablePointer<ldns_pkt>?
        let status = wire.withUnsafeBufferPointer { ldns.ldns_wire2pkt(&packet, $0.baseAddress, $0.count) }
        guard status == LDNS_STATUS_OK, let packet else {
            throw .cannotSign("libldns cannot read the message: \(LDNSResolver.text(status))")
        }
        self.init(owning: packet)
    }

    deinit {
        ldns.ldns_pkt_free(pointer)
    }

    /// The packet in wire format.
    func wire() throws(DNSServerError) -> [UInt8] {
        var bytes: UnsafeMutablePointer<UInt8>?
        var size = 0
        let status = ldns.ldns_pkt2wire(&bytes, pointer, &size)
        guard status == LDNS_STATUS_OK, let bytes else {
            throw .malformed(server: "", problem: LDNSResolver.text(status))
        }
        defer { free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }
}
