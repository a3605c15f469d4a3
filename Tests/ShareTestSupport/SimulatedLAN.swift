public import Foundation

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
/// Hosts are named by the test; their namespaces get the LAN's prefix (one per test suite, so
/// suites that run at once never share a LAN), state lives under /tmp/share-lan-PREFIX. `lan.sh up`
/// removes what a dead earlier run left under the same prefix, and refuses a prefix a live
/// run holds. Call ``down()`` in a `defer` right after creating the LAN.
public final class SimulatedLAN: Sendable {
    /// Tests/Hosts/lan.sh, found from this file's path.
    public static let script: String = URL(filePath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "Hosts/lan.sh").path

    /// An executable built by this package (e.g. `share`, `ShareDiscoveryProbe`), next to the
    /// running test binary or under .build/debug.
    public static func builtExecutable(_ name: String) -> String? {
        var candidates: [URL] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(filePath: exe).deletingLastPathComponent().appending(path: name))
        }
        candidates.append(
            URL(filePath: script).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appending(path: ".build/debug/\(name)"))
        return candidates.map(\.path).first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// What this machine lacks for the simulated LAN (empty: it can run).
    public static let missingCapabilities: [String] = {
        var missing: [String] = []
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
    public static var isRequired: Bool { ProcessInfo.processInfo.environment["SHARE_REQUIRE_NETNS"] == "1" }

    /// Whether multi-host tests run: when the machine can, or when they are required (and then fail).
    public static var shouldRun: Bool { isRequired || missingCapabilities.isEmpty }

    /// Why multi-host tests are skipped here.
    public static var skipReason: String {
        "simulated LAN unavailable (" + missingCapabilities.joined(separator: "; ")
            + "); set SHARE_REQUIRE_NETNS=1 to make this a failure"
    }

    /// The hosts this LAN was created with.
    public let hosts: [String]
    /// The namespace prefix of this LAN.
    public let prefix: String

    /// Creates the hosts (replacing any stale ones with the same prefix).
    ///
    /// - Throws: ``HarnessError`` naming what is missing, or the script's output if `up` failed.
    public convenience init(hosts: [String], prefix: String) throws {
        try self.init(command: "up", arguments: hosts, hosts: hosts, prefix: prefix, missing: Self.missingCapabilities)
    }

    /// Runs `lan.sh COMMAND ARGUMENTS` to create the hosts (``up`` or routed subnets).
    public init(command: String, arguments: [String], hosts: [String], prefix: String, missing: [String]) throws {
        guard missing.isEmpty else {
            throw HarnessError(
                description: "SHARE_REQUIRE_NETNS=1 but the simulated LAN cannot run here: " + missing.joined(separator: "; "))
        }
        self.hosts = hosts
        self.prefix = prefix
        let result = try Self.runScript([command] + arguments, prefix: prefix)
        guard result.status == 0 else {
            throw HarnessError(description: "lan.sh \(command) \(arguments.joined(separator: " ")) failed:\n\(result.output)")
        }
    }

    /// Kills everything on the hosts and deletes them. Safe to call more than once.
    public func down() {
        _ = try? Self.runScript(["down"], prefix: prefix)
    }

    /// The host's IPv4 address.
    public func ipv4(_ host: String) throws -> String { try query(["addr", host]) }

    /// The host's IPv6 link-local address, without scope.
    public func ipv6LinkLocal(_ host: String) throws -> String { try query(["addr6", host]) }

    /// Stops the host's avahi-daemon (it sends goodbye packets first).
    public func stopAvahi(_ host: String) throws { _ = try query(["stop-avahi", host]) }

    /// Starts the host's avahi-daemon and waits until it is up.
    public func startAvahi(_ host: String) throws { _ = try query(["start-avahi", host]) }

    /// Stops and starts the host's avahi-daemon.
    public func restartAvahi(_ host: String) throws { _ = try query(["restart-avahi", host]) }

    /// Starts `executable` on a host (in its network namespace, talking to its own avahi-daemon).
    public func run(
        on host: String, _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        label: String? = nil, separateStandardError: Bool = false
    ) throws -> HostProcess {
        var env = Self.environment(prefix: prefix)
        for (key, value) in environment { env[key] = value }
        let isShare = (executable as NSString).lastPathComponent == "share"
        return try HostProcess(
            label: label ?? "\((executable as NSString).lastPathComponent) on \(host)", executable: Self.script,
            arguments: ["run", host, executable] + arguments, environment: env,
            separateStandardError: separateStandardError, jsonArguments: isShare ? arguments : nil)
    }

    func query(_ arguments: [String]) throws -> String {
        let result = try Self.runScript(arguments, prefix: prefix)
        guard result.status == 0 else {
            throw HarnessError(description: "lan.sh \(arguments.joined(separator: " ")) failed:\n\(result.output)")
        }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The environment for lan.sh: the caller's, plus the owner pid and the prefix.
    ///
    /// `SHARE_LAN_TAG` (letters and digits) is appended to every prefix, so that test runs from
    /// several checkouts on one machine never share namespaces.
    public static func environment(prefix: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        let tag = (environment["SHARE_LAN_TAG"] ?? "").filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
        environment["SHARE_LAN_PREFIX"] = prefix + tag.lowercased()
        environment.removeValue(forKey: "SHARE_LAN_STATE")
        environment["SHARE_LAN_OWNER"] = String(getpid())
        return environment
    }

    /// Runs lan.sh to completion; stdout and stderr together.
    public static func runScript(_ arguments: [String], prefix: String = "shcheck") throws -> (status: Int32, output: String) {
        let child = try Subprocess(
            executable: script, arguments: arguments, environment: environment(prefix: prefix), stdinPipe: false)
        let output = child.readToEnd()
        let status = child.reap(block: true) ?? -1
        return (status, String(decoding: output, as: UTF8.self))
    }
}
