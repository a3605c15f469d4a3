import ShareDNS
import ShareDNSUpdate

/// `share receive --domain DOMAIN [--dns-key FILE] [--dns-server SERVER]`: checks the options and
/// builds the publication they and `settings.json` ask for (docs/WIDE-AREA.md).
public enum WideAreaSetup {
    /// Why a domain given with `--domain` cannot be published in.
    public enum DomainProblem: Sendable, Equatable {
        /// It is not a domain name; the parser's reason.
        case notADomainName(String)
        /// It is empty or `local` (the local network, where Avahi publishes).
        case localNetwork
    }

    /// Why no publication could be set up, written for the person at the terminal.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        /// What is wrong, and how to fix it.
        public var description: String
    }

    /// What is wrong with `domain` as a wide-area domain, or nil when it is one.
    public static func problem(withDomain domain: String) -> DomainProblem? {
        let name: DNSName
        do {
            name = try DNSName(domain)
        } catch {
            return .notADomainName("\(error)")
        }
        if name.labels.isEmpty || name.labels.last.map({ String(decoding: $0, as: UTF8.self).lowercased() }) == "local" {
            return .localNetwork
        }
        return nil
    }

    /// The publication the options and settings ask for, or nil for none; the key file is read
    /// (and refused unless only its owner can read it) before anything starts.
    public static func publication(
        domain: String?, keyFile: String?, server: String?, settings: NodeSettings, workingDirectory: String
    ) throws(Failure) -> WideAreaPublication? {
        let saved = settings.wideArea
        guard let domainText = domain ?? saved?.domain else { return nil }
        let name: DNSName
        do {
            name = try DNSName(domainText)
        } catch {
            throw Failure(description: "the wide-area domain '\(domainText)' in settings.json is not a domain name: \(error)")
        }
        guard let keyPath = keyFile ?? (domain == nil || domain == saved?.domain ? saved?.dnsKey : nil) else {
            throw Failure(
                description: "publishing in \(name) needs the TSIG key the DNS server accepts: give --dns-key FILE (as "
                    + "'tsig-keygen' writes it) or set wideArea.dnsKey in settings.json")
        }
        let key: TSIGKey
        do {
            key = try TSIGKey.load(path: keyPath.hasPrefix("/") ? keyPath : workingDirectory + "/" + keyPath)
        } catch {
            throw Failure(description: error.description)
        }
        var publication = WideAreaPublication(domain: name, key: key, server: server ?? saved?.dnsServer)
        if let seconds = saved?.addressCheckSeconds, seconds > 0 {
            publication.addressCheckInterval = .milliseconds(Int(seconds * 1000))
        }
        return publication
    }
}
