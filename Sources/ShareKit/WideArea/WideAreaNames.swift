import Foundation
public import ShareDNS
import ShareDiscovery
public import ShareTLS

/// The DNS names of share's wide-area DNS-SD records (RFC 6763) in a domain `D`:
///
/// | name | records |
/// |---|---|
/// | `_share._tcp.D` | PTR to each instance |
/// | `<device name>._share._tcp.D` | SRV (port, host) and TXT (``Advertisement``) |
/// | `share-<16 hex digits of the fingerprint>.D` | A and AAAA: the receiver's addresses |
///
/// The host name comes from the fingerprint, not the machine's host name: it is unique to the
/// machine's key, never collides with the zone's own host records, and advertises nothing
/// personal (docs/PROTOCOL.md §13).
public enum WideAreaNames {
    /// `_share._tcp.D`.
    public static func service(in domain: DNSName) throws(DNSNameError) -> DNSName {
        try DNSName(ServiceType.share).appending(domain)
    }

    /// `<name>._share._tcp.D`, the instance name as one label.
    public static func instance(_ name: String, in domain: DNSName) throws(DNSNameError) -> DNSName {
        try DNSName(label: name, in: service(in: domain))
    }

    /// `share-<16 hex digits>.D`, the host the SRV record points at.
    public static func host(for fingerprint: Fingerprint, in domain: DNSName) throws(DNSNameError) -> DNSName {
        try DNSName(label: "share-" + fingerprint.prefix(16), in: domain)
    }

    /// The next name to try after `name` is taken: "desk" → "desk #2" → "desk #3", as Avahi names
    /// services on the local network, cut to fit one DNS label.
    public static func alternative(to name: String) -> String {
        var base = name
        var number = 2
        if let hash = name.range(of: " #", options: .backwards), let current = Int(name[hash.upperBound...]), current >= 2 {
            base = String(name[..<hash.lowerBound])
            number = current + 1
        }
        let suffix = " #\(number)"
        while base.utf8.count + suffix.utf8.count > DNSName.maxLabelLength, !base.isEmpty { base.removeLast() }
        return base + suffix
    }
}
