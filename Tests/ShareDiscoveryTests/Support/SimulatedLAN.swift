import Foundation
import Testing

/// Simulated LAN hosts for multi-host tests: a Swift front to Tests/Hosts/lan.sh.
///
/// Each host is a network namespace with its own D-Bus system bus and avahi-daemon. Avahi
/// clients run as separate processes *inside* a host (ShareDiscoveryProbe through
/// `lan.sh run`), never in the test process, because:
/// - libdbus reads DBUS_SYSTEM_BUS_ADDRESS once per process and caches it, so pointing the
///   variable at another host's bus later in the same process has no effect (checked:
///   a second avahi_client_new after setenv still talks to the first bus);
/// - `if_indextoname()` answers for the caller's network namespace, so interface names
///   and IPv6 scopes (`fe80::…%eth0`) are only right inside the host.
///
/// Hosts are named by the test; their namespaces get the prefix `SHARE_LAN_PREFIX`
/// (default `shdisc`), state lives in `SHARE_LAN_STATE` (default under /tmp). `lan.sh up`
/// removes what a dead earlier run left under the same prefix, and refuses a prefix a live
/// run holds. Call ``down()`` in a `defer` right after creating the LAN.
final class SimulatedLAN: Sendable {
    /// Tests/Hosts/lan.sh, found from this file's path.
    static let script: String = URL(filePath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "Hosts/lan.sh").path

    /// The ShareDiscoveryProbe binary next to the test binary (the test target depends on it).
    static let probe: String? = {
        var candidates: [URL] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(filePath: exe).deletingLastPathComponent().appending(path: "ShareDiscoveryProbe"))
        }
        candidates.append(
            URL(filePath: script).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appending(path: ".build/debug/ShareDiscoveryProbe"))
        return candidates.map(\.path).first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// What this machine lacks for the simulated LAN (empty: it can run).
    static let missingCapabilities: [String] = {
        var missing: [String] = []
        if probe == nil { missing.append("the ShareDiscoveryProbe binary was not built") }
        guard FileManager.default.isExecutableFile(atPath: script) else {
            return missing + ["\(script) is missing or not executable"]
        }
        let result = try? runScript(["check"])
        if let result {
            missing += result.output.split(separator: "\n").map(String.init)
            if result.status != 0, result.output.isEmpty { missing.append("lan.sh check failed") }
        } else {
            missing.append("cannot run \(script)")
        }
        return missing
    }()

    /// `SHARE_REQUIRE_NETNS=1`: a missing capability fails the tests instead of skipping them.
    static var isRequired: Bool { ProcessInfo.processInfo.environment["SHARE_REQUIRE_NETNS"] == "1" }

    /// Whether multi-host tests run: when the machine can, or when they are required (and then fail).
    static var shouldRun: Bool { isRequired || missingCapabilities.isEmpty }

    /// The note shown when multi-host tests are skipped.
    static var skipNote: Comment {
        Comment(
            rawValue: "simulated LAN unavailable (" + missingCapabilities.joined(separator: "; ")
                + "); set SHARE_REQUIRE_NETNS=1 to make this a failure")
    }

    /// The hosts this LAN was created with.
    let hosts: [String]

    /// Creates the hosts (replacing any stale ones with the same prefix).
    ///
    /// - Throws: ``HarnessError`` naming what is missing, or the script's output if `up` failed.
    init(hosts: [String]) throws {
        guard Self.missingCapabilities.isEmpty else {
            throw HarnessError(
                description: "SHARE_REQUIRE_NETNS=1 but the simulated LAN cannot run here: "
                    + Self.missingCapabilities.joined(separator: "; "))
        }
        self.hosts = hosts
        let result = try Self.runScript(["up"] + hosts)
        guard result.status == 0 else {
            throw HarnessError(description: "lan.sh up \(hosts.joined(separator: " ")) failed:\n\(result.output)")
        }
    }

    /// Kills everything on the hosts and deletes them. Safe to call more than once.
    func down() {
        _ = try? Self.runScript(["down"])
    }

    /// The host's IPv4 address.
    func ipv4(_ host: String) throws -> String { try query(["addr", host]) }

    /// The host's IPv6 link-local address, without scope.
    func ipv6LinkLocal(_ host: String) throws -> String { try query(["addr6", host]) }

    /// Stops the host's avahi-daemon (it sends goodbye packets first).
    func stopAvahi(_ host: String) throws { _ = try query(["stop-avahi", host]) }

    /// Starts the host's avahi-daemon and waits until it is up.
    func startAvahi(_ host: String) throws { _ = try query(["start-avahi", host]) }

    /// Stops and starts the host's avahi-daemon.
    func restartAvahi(_ host: String) throws { _ = try query(["restart-avahi", host]) }

    /// Starts ShareDiscoveryProbe on a host.
    func probe(on host: String, _ arguments: [String]) throws -> HostProcess {
        guard let probe = Self.probe else { throw HarnessError(description: "ShareDiscoveryProbe not built") }
        return try HostProcess(
            label: "\(arguments.first ?? "probe") on \(host)", executable: Self.script,
            arguments: ["run", host, probe] + arguments, environment: Self.environment)
    }

    private func query(_ arguments: [String]) throws -> String {
        let result = try Self.runScript(arguments)
        guard result.status == 0 else {
            throw HarnessError(description: "lan.sh \(arguments.joined(separator: " ")) failed:\n\(result.output)")
        }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The environment for lan.sh: the caller's, plus the owner pid and default prefix.
    static var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["SHARE_LAN_PREFIX"] = environment["SHARE_LAN_PREFIX"] ?? "shdisc"
        environment["SHARE_LAN_OWNER"] = String(getpid())
        return environment
    }

    /// Runs lan.sh to completion; stdout and stderr together.
    static func runScript(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let child = try Subprocess(executable: script, arguments: arguments, environment: environment, stdinPipe: false)
        let output = child.readToEnd()
        let status = child.reap(block: true) ?? -1
        return (status, String(decoding: output, as: UTF8.self))
    }
}
