public import Foundation

/// Routed subnets for wide-area DNS-SD tests (`lan.sh up-routed`): hosts on two subnets joined by
/// a router host that forwards between them and runs BIND (named) with the example configuration
/// of docs/wide-area (zone office.example, keys share-team and lab-other; empty zone
/// campus.example). Multicast DNS stays on each subnet; the hosts' resolvers ask the router.
extension SimulatedLAN {
    /// What this machine lacks for routed subnets (empty: they can run).
    public static let routedMissingCapabilities: [String] = {
        let result = try? runScript(["check-routed"])
        guard let result else { return ["cannot run \(script)"] }
        let missing = result.output.split(separator: "\n").map(String.init)
        return result.status == 0 ? [] : (missing.isEmpty ? ["lan.sh check-routed failed"] : missing)
    }()

    /// Whether routed tests run: when the machine can, or when they are required (and then fail).
    public static var routedShouldRun: Bool { isRequired || routedMissingCapabilities.isEmpty }

    /// Why routed tests are skipped here.
    public static var routedSkipReason: String {
        "routed subnets unavailable (" + routedMissingCapabilities.joined(separator: "; ")
            + "); set SHARE_REQUIRE_NETNS=1 to make this a failure"
    }

    /// Creates `first` on subnet 1 and `second` on subnet 2, and the router with named.
    public convenience init(subnet first: [String], subnet second: [String], prefix: String) throws {
        try self.init(
            command: "up-routed", arguments: first + ["/"] + second, hosts: first + second, prefix: prefix,
            missing: Self.routedMissingCapabilities)
    }

    /// A routed host's global IPv6 address.
    public func ipv6(_ host: String) throws -> String { try query(["addr6", host]) }

    /// named's folder: named.conf, the zones, named.log, share-team.key and lab-other.key.
    public func namedDirectory() throws -> String { try query(["named-dir"]) }

    /// Restarts named (after its named.conf was changed).
    public func restartNamed() throws { _ = try query(["restart-named"]) }

    /// Replaces a routed host's resolv.conf (what its programs' resolver asks).
    public func setResolver(_ host: String, _ text: String) throws {
        let file = FileManager.default.temporaryDirectory.appending(path: "resolv-\(getpid())-\(host)").path
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try Self.runScript(["resolv", host, file], prefix: prefix)
        guard result.status == 0 else { throw HarnessError(description: "lan.sh resolv \(host) failed:\n\(result.output)") }
    }
}
