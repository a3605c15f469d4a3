internal import CShareResolv
import Glibc

/// The system's DNS resolver (glibc's libresolv), configured by /etc/resolv.conf: its servers,
/// search list and options.
///
/// Queries go through `res_nsend`, which tries each server in turn, retries, and asks again over
/// TCP when an answer is truncated (no EDNS is sent, so any answer over 512 bytes comes by TCP).
/// The per-try timeout and the number of tries are capped (``init(maximumTimeout:maximumTries:)``)
/// so that a dead server costs seconds, not the resolver's default of up to 30.
///
/// Not thread-safe: a resolver context belongs to one thread at a time. Create one per thread.
public final class SystemResolver {
    private let context: OpaquePointer

    /// Reads the resolver configuration.
    /// - Parameters:
    ///   - maximumTimeout: the longest wait for one answer, in seconds (resolv.conf `timeout:` may lower it).
    ///   - maximumTries: the most tries per server (resolv.conf `attempts:` may lower it).
    /// - Throws: ``DNSLookupError/noConfiguration(_:)`` when libresolv cannot be initialized.
    public init(maximumTimeout: Int = 2, maximumTries: Int = 2) throws(DNSLookupError) {
        guard let state = CShareResolv_new() else {
            throw .noConfiguration("cannot read the resolver configuration (/etc/resolv.conf)")
        }
        CShareResolv_limit(state, Int32(max(1, maximumTimeout)), Int32(max(1, maximumTries)))
        context = state
    }

    deinit {
        CShareResolv_free(context)
    }

    /// The name servers, as address text, in the order they are asked.
    public var servers: [String] {
        (0..<Int(CShareResolv_server_count(context))).compactMap { index in
            var buffer = [CChar](repeating: 0, count: Int(CSHARE_RESOLV_ADDRESS_TEXT))
            guard CShareResolv_server(context, Int32(index), &buffer, UInt32(buffer.count)) == 0 else { return nil }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// The search domains (the `search` or `domain` line of resolv.conf), in order.
    public var searchDomains: [DNSName] {
        var domains: [DNSName] = []
        var index: Int32 = 0
        while let text = CShareResolv_search_domain(context, index) {
            if let name = try? DNSName(String(cString: text)), !name.labels.isEmpty, !domains.contains(name) {
                domains.append(name)
            }
            index += 1
        }
        return domains
    }

    /// The longest a query may take before it fails for want of an answer, in seconds.
    public var patience: Int {
        Int(CShareResolv_timeout(context)) * Int(CShareResolv_tries(context)) * max(1, Int(CShareResolv_server_count(context)))
    }

    /// Asks for `type` records of `name` and returns the whole answer, whatever its response code
    /// (NXDOMAIN included) when a server gave one.
    /// - Throws: ``DNSLookupError`` when no server answered, every server refused or failed, or
    ///   the answer is malformed.
    public func query(_ name: DNSName, _ type: DNSRecordType) throws(DNSLookupError) -> DNSMessage {
        let query = DNSMessage.query(name, type, id: UInt16.random(in: 0...UInt16.max)).wire
        var answer = [UInt8](repeating: 0, count: 65_535)
        errno = 0
        let started = ContinuousClock.now
        let length = query.withUnsafeBufferPointer { queryBytes in
            answer.withUnsafeMutableBufferPointer { answerBytes in
                CShareResolv_send(
                    context, queryBytes.baseAddress!, Int32(queryBytes.count), answerBytes.baseAddress!,
                    Int32(answerBytes.count))
            }
        }
        guard length > 0 else {
            // res_nsend moves on from a server that answers REFUSED, SERVFAIL or NOTIMP as from one
            // that is silent, and reports both as ETIMEDOUT: failing before one try's timeout ran out
            // means the servers answered, with a refusal.
            let code = errno
            let quick = ContinuousClock.now - started < .seconds(Int(CShareResolv_timeout(context)))
            if code == ECONNREFUSED { throw .unreachable(servers: servers) }
            if quick { throw .refused(servers: servers) }
            throw .noAnswer(servers: servers, seconds: patience)
        }
        let message: DNSMessage
        do {
            message = try DNSMessage(parsing: Array(answer.prefix(Int(length))))
        } catch {
            throw .malformed(servers: servers, problem: error.description)
        }
        return message
    }

    /// The `type` records of `name` in the answer, and the answer's additional records: empty
    /// when the name does not exist or has no such records (NXDOMAIN, NODATA).
    /// - Throws: ``DNSLookupError`` for a failure (no answer, refused, SERVFAIL...).
    public func lookup(_ name: DNSName, _ type: DNSRecordType) throws(DNSLookupError) -> (records: [DNSRecord], additional: [DNSRecord]) {
        let message = try query(name, type)
        switch message.responseCode {
        case .noError:
            return (message.answers(type, for: name), message.additional)
        case .nameError:
            return ([], [])
        case .refused, .notAuthorized:
            throw .refused(servers: servers)
        default:
            throw .failed(servers: servers, code: message.responseCode)
        }
    }
}

/// Why a DNS lookup did not give an answer.
public enum DNSLookupError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The resolver could not be set up.
    case noConfiguration(String)
    /// No server answered in time.
    case noAnswer(servers: [String], seconds: Int)
    /// Nothing answers at the servers' addresses (connection refused, no route).
    case unreachable(servers: [String])
    /// Every server refused the query (it does not serve that name, or not to this machine).
    case refused(servers: [String])
    /// The server answered with an error code, e.g. SERVFAIL.
    case failed(servers: [String], code: DNSResponseCode)
    /// The answer did not parse.
    case malformed(servers: [String], problem: String)

    public var description: String {
        switch self {
        case .noConfiguration(let problem): problem
        case .noAnswer(let servers, let seconds):
            "no answer from \(Self.describe(servers)) within \(seconds) s"
        case .unreachable(let servers): "cannot reach \(Self.describe(servers)) (nothing answers there)"
        case .refused(let servers): "\(Self.describe(servers)) refused or failed the query (it may not serve this domain)"
        case .failed(let servers, let code): "\(Self.describe(servers)) answered \(code)"
        case .malformed(let servers, let problem): "\(Self.describe(servers)) sent \(problem)"
        }
    }

    private static func describe(_ servers: [String]) -> String {
        switch servers.count {
        case 0: "the DNS server (none is configured in /etc/resolv.conf)"
        case 1: "the DNS server \(servers[0])"
        default: "the DNS servers " + servers.joined(separator: ", ")
        }
    }
}
