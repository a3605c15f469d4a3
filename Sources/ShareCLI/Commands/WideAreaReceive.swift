import Foundation
import ShareKit
import ShareTLS
import TypeRegistry

/// `share receive --domain DOMAIN [--dns-key FILE] [--dns-server SERVER]`: publishing the receiver
/// in a wide-area DNS domain as well as on the local network (docs/WIDE-AREA.md).
struct WideAreaReceive {
    /// The options as given on the command line.
    struct Options: Sendable {
        var domain: String?
        var keyFile: String?
        var server: String?

        /// The options of `share receive` that belong here.
        static let specs: [OptionSpec] = [
            .value("domain", "domain", help: "Also publish this machine in this DNS domain (wide-area DNS-SD), e.g. office.example."),
            .value("dns-key", "file", help: "With --domain: the TSIG key file (as tsig-keygen writes it) that signs the updates."),
            .value("dns-server", "server", help: "With --domain: the DNS server to update (default: the zone's primary)."),
        ]

        /// Reads and checks the options.
        init(_ parsed: ParsedArguments) throws(UsageError) {
            domain = parsed.value("domain")
            keyFile = parsed.value("dns-key")
            server = parsed.value("dns-server")
            if let domain {
                switch WideAreaSetup.problem(withDomain: domain) {
                case .notADomainName(let reason)?:
                    throw parsed.usageError("--domain '\(domain)' is not a domain name: \(reason)")
                case .localNetwork?:
                    throw parsed.usageError("--domain '\(domain)' is not a wide-area domain ('local' is the local network)")
                case nil:
                    break
                }
            }
            if domain == nil && (keyFile != nil || server != nil) {
                throw parsed.usageError("--dns-key and --dns-server need --domain")
            }
        }
    }

    /// The publication the options and settings ask for, or nil for none; the key file is read
    /// (and refused unless only its owner can read it) before anything starts.
    static func publication(_ options: Options, settings: NodeSettings, workingDirectory: String) throws(CLIError)
        -> WideAreaPublication?
    {
        do {
            return try WideAreaSetup.publication(
                domain: options.domain, keyFile: options.keyFile, server: options.server, settings: settings,
                workingDirectory: workingDirectory)
        } catch {
            throw CLIError(error.description)
        }
    }
}

extension ReceiveReporter {
    /// Reports what happened to the wide-area entry.
    func wideArea(_ event: WideAreaEvent) {
        func emit(_ fields: [(String, JSON)]) { console.line(JSON.object(fields).text()) }
        switch event {
        case .published(let name, let domain, let host, let addresses, let reclaimed):
            if json {
                emit([
                    ("event", .string("published")), ("name", .string(name)), ("domain", .string(domain)),
                    ("host", .string(host)), ("addresses", .array(addresses.map { .string($0) })), ("reclaimed", .bool(reclaimed)),
                ])
            } else {
                let note = reclaimed ? "; replaced this machine's entry left by an earlier run" : ""
                console.line(
                    "Visible in \(TerminalText.safe(domain)) as \"\(TerminalText.safe(name))\" (\(addresses.joined(separator: ", "))\(note)).")
            }
        case .renamed(let from, let to, let domain):
            if json {
                emit([("event", .string("renamed")), ("from", .string(from)), ("to", .string(to)), ("domain", .string(domain))])
            } else {
                console.line(
                    "The name \"\(TerminalText.safe(from))\" is taken in \(TerminalText.safe(domain)) by another machine; "
                        + "trying \"\(TerminalText.safe(to))\".")
            }
        case .addressesChanged(let name, let domain, let addresses):
            if json {
                emit([
                    ("event", .string("updated")), ("name", .string(name)), ("domain", .string(domain)),
                    ("addresses", .array(addresses.map { .string($0) })),
                ])
            } else {
                console.line("Addresses in \(TerminalText.safe(domain)) updated: \(addresses.joined(separator: ", ")).")
            }
        case .unavailable(let domain, let reason, let retrying):
            if json {
                emit([
                    ("event", .string("not-discoverable")), ("domain", .string(domain)), ("reason", .string(reason)),
                    ("retrying", .bool(retrying)),
                ])
            } else {
                warning(
                    "not visible in \(TerminalText.safe(domain)): \(TerminalText.safe(reason))"
                        + (retrying ? "; trying again." : ". Machines on the local network still see this one."))
            }
        case .withdrawn(let name, let domain):
            if json {
                emit([("event", .string("withdrawn")), ("name", .string(name)), ("domain", .string(domain))])
            } else {
                console.line("Removed \"\(TerminalText.safe(name))\" from \(TerminalText.safe(domain)).")
            }
        case .withdrawFailed(let name, let domain, let reason):
            if json {
                emit([
                    ("event", .string("withdraw-failed")), ("name", .string(name)), ("domain", .string(domain)),
                    ("reason", .string(reason)),
                ])
            } else {
                warning(
                    "could not remove \"\(TerminalText.safe(name))\" from \(TerminalText.safe(domain)): \(TerminalText.safe(reason)). "
                        + "The next 'share receive' replaces it.")
            }
        }
    }
}
