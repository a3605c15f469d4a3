import ShareDNS
import ShareDNSUpdate

/// Finds the zone a domain belongs to and the server that takes its updates: the server given by
/// the user, else the zone's primary (the MNAME of its SOA record), both through the system's
/// resolver.
enum ZoneLocator {
    /// A reason publishing cannot go on, and whether trying again later may help.
    struct Failure: Error {
        var reason: String
        var temporary: Bool
    }

    /// The server (with `key` for signing) and the zone of `domain`.
    static func locate(domain: DNSName, server override: String?, key: TSIGKey) throws(Failure) -> (DNSServer, zone: DNSName) {
        if let override {
            let (host, port) = try splitHostPort(override)
            let server = try makeServer(try resolve(host, what: "the DNS server '\(override)'"), port: port, key: key)
            let answer: DNSMessage
            do {
                answer = try server.query(domain, .soa)
            } catch {
                throw Failure(reason: error.description, temporary: true)
            }
            guard let (zone, _) = startOfAuthority(in: answer, for: domain) else {
                throw Failure(
                    reason: "the DNS server \(server.label) does not serve a zone holding \(domain) (\(answer.responseCode))",
                    temporary: false)
            }
            return (server, zone)
        }
        let resolver = try systemResolver()
        let answer: DNSMessage
        do {
            answer = try resolver.query(domain, .soa)
        } catch {
            throw Failure(reason: "cannot find the DNS zone of \(domain): \(error)", temporary: true)
        }
        guard let (zone, primary) = startOfAuthority(in: answer, for: domain) else {
            throw Failure(
                reason: "cannot find the DNS zone of \(domain) (the resolver answered \(answer.responseCode) without "
                    + "an SOA record); name its primary server with --dns-server", temporary: false)
        }
        let glue = answer.additional.compactMap { record -> String? in
            guard record.name == primary else { return nil }
            switch record.data {
            case .ipv4(let bytes), .ipv6(let bytes): return IPAddressText.format(bytes)
            default: return nil
            }
        }
        let addresses = glue.isEmpty ? try resolve(primary.presentation, what: "the primary server \(primary) of \(zone)") : glue
        return (try makeServer(preferReachable(addresses), port: 53, key: key), zone)
    }

    /// The zone (owner of the SOA record) and its primary server, from an answer to an SOA query.
    static func startOfAuthority(in answer: DNSMessage, for domain: DNSName) -> (DNSName, DNSName)? {
        for record in answer.answers + answer.authority {
            if case .startOfAuthority(let primary, _, _) = record.data, domain.isSubdomain(of: record.name) {
                return (record.name, primary)
            }
        }
        return nil
    }

    /// `HOST`, `HOST:PORT`, `[IPV6]:PORT` or a bare IPv6 address.
    static func splitHostPort(_ text: String) throws(Failure) -> (String, UInt16) {
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || rest.hasPrefix(":"), let port = rest.isEmpty ? 53 : UInt16(rest.dropFirst()) else {
                throw Failure(reason: "'\(text)' is not a DNS server address", temporary: false)
            }
            return (host, port)
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 2 {
            guard let port = UInt16(parts[1]), !parts[0].isEmpty else {
                throw Failure(reason: "'\(text)' is not a DNS server address", temporary: false)
            }
            return (String(parts[0]), port)
        }
        return (text, 53)
    }

    /// The addresses of the families this machine has a routable address of first, so an
    /// IPv6-only host does not wait for an IPv4 server first (and the other way round).
    static func preferReachable(_ addresses: [String]) -> [String] {
        let families = Set(LocalAddresses.routable().map(\.bytes.count))
        return addresses.filter { families.contains(IPAddressText.parse($0)?.count ?? 0) }
            + addresses.filter { !families.contains(IPAddressText.parse($0)?.count ?? 0) }
    }

    /// An IP address as it is, or a host name's addresses (IPv4 first) through the resolver.
    private static func resolve(_ host: String, what: String) throws(Failure) -> [String] {
        if IPAddressText.parse(host) != nil { return [host] }
        let resolver = try systemResolver()
        let name: DNSName
        do {
            name = try DNSName(host)
        } catch {
            throw Failure(reason: "\(what) is not a host name: \(error)", temporary: false)
        }
        var addresses: [String] = []
        for type in [DNSRecordType.a, .aaaa] {
            let records: [DNSRecord]
            do {
                records = try resolver.lookup(name, type).records
            } catch {
                throw Failure(reason: "cannot find the address of \(what): \(error)", temporary: true)
            }
            for record in records {
                if case .ipv4(let bytes) = record.data { addresses.append(IPAddressText.format(bytes)) }
                if case .ipv6(let bytes) = record.data { addresses.append(IPAddressText.format(bytes)) }
            }
        }
        guard !addresses.isEmpty else { throw Failure(reason: "\(what) has no address in DNS", temporary: false) }
        return addresses
    }

    private static func makeServer(_ addresses: [String], port: UInt16, key: TSIGKey) throws(Failure) -> DNSServer {
        do {
            return try DNSServer(addresses: addresses, port: port, key: key)
        } catch {
            throw Failure(reason: error.description, temporary: false)
        }
    }

    private static func systemResolver() throws(Failure) -> SystemResolver {
        do {
            return try SystemResolver()
        } catch {
            throw Failure(reason: error.description, temporary: true)
        }
    }
}
